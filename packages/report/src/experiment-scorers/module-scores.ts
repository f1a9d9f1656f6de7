import type { ModuleObservation, ModuleScores } from '@chi/analysis';
import type { BlockRow } from '@chi/analysis/internal';
import { type AnyExperimentScorer, type ScorerCell, scoresWorlds } from '@chi/experiment';
import { requestsAt } from '../run-folder/plan-view';
import { PlannedOutcomes } from '../run-folder/planned-outcomes';
import type { RunRecords } from '../run-folder/run-folder';
import { type OutcomeSource, type RequestSource, scorerRequestOf } from './scorer-request';

/**
 * What {@link scoreModule} reads of a run: the manifest, the plan and the rendered requests
 * (`RunRecords` has them; the divergence release's recomputation gives its own readers of the
 * same files).
 */
export type ModuleScoringSource = Pick<RunRecords, 'manifest' | 'plan'> & RequestSource;

/**
 * The ordinals of the plan's requests of one experiment, by world seed (ascending) then by
 * system: a world's requests are parsed when it is scored, not held for the whole experiment.
 */
function requestsByWorld(
  records: Pick<RunRecords, 'plan'>,
  experimentId: string,
): Map<number, Map<string, number[]>> {
  const worlds = new Map<number, Map<string, number[]>>();
  records.plan.requests.forEach((request, ordinal) => {
    if (request.experiment !== experimentId) return;
    const systems = worlds.get(request.worldSeed) ?? new Map<string, number[]>();
    const list = systems.get(request.systemId) ?? [];
    list.push(ordinal);
    systems.set(request.systemId, list);
    worlds.set(request.worldSeed, systems);
  });
  return new Map([...worlds.entries()].sort(([a], [b]) => a - b));
}

/**
 * Scores one experiment of a run through its scorer's per-world capability, world by world: each system's requests on a world with
 * their usable replies go to `scorer.scoreWorld`, and only the small per-world result is kept.
 * The outcomes are the attempt log's one fold that keeps line indexes (`PlannedOutcomes`, the
 * same as `scoreRun`'s): a reply is read back from the log when its world is scored, so the run's
 * requests and replies never sit in memory at once.
 * A world whose blocks never started is skipped; one with an incomplete block is scored and
 * flagged (`blockComplete: false`), and the analysis leaves it out. Null when the run does not
 * include the experiment or the scorer has no per-world capability. `scoreRun` calls it for every
 * such scorer over its one fold of the log; the divergence release (`@chi/pilot`) calls it with
 * its own readers of the same run files, so its probes are scored by the same pass.
 */
export function scoreModule(
  records: ModuleScoringSource & { readonly attempts?: RunRecords['attempts'] },
  blocks: readonly Pick<BlockRow, 'experiment' | 'worldSeed' | 'status'>[],
  scorer: AnyExperimentScorer,
  outcomes: OutcomeSource = PlannedOutcomes.fold(records.plan, records.attempts ?? []),
): ModuleScores | null {
  if (!scoresWorlds(scorer)) return null;
  const params = scorer.parametersOf(records.manifest);
  if (params === null) return null;
  const own = blocks.filter((block) => block.experiment === scorer.experimentId);
  const observations: ModuleObservation[] = [];
  const traces = new Map<string, Readonly<Record<string, ScorerCell>>[]>();
  for (const [worldSeed, systems] of requestsByWorld(records, scorer.experimentId)) {
    const worldBlocks = own.filter((block) => block.worldSeed === worldSeed);
    if (worldBlocks.every((block) => block.status === 'not_started')) continue;
    const blockComplete = worldBlocks.every((block) => block.status === 'complete');
    for (const system of records.manifest.systems) {
      const ordinals = systems.get(system.id);
      if (ordinals === undefined) continue;
      const requests = requestsAt(records.plan, ordinals).map((r) =>
        scorerRequestOf(records, r, outcomes),
      );
      const result = scorer.scoreWorld({ params, worldSeed, systemId: system.id, requests });
      observations.push({
        kind: 'module-observation',
        experiment: scorer.experimentId,
        systemId: system.id,
        worldSeed,
        blockComplete,
        unusableRequests: requests
          .filter((r) => r.unusableReason !== null)
          .map((r) => ({ requestId: r.request.requestId, reason: r.unusableReason as string })),
        values: Object.fromEntries(scorer.columns.map((c) => [c, result.values[c] ?? null])),
      });
      const lines = traces.get(system.id) ?? [];
      for (const line of result.traces) lines.push({ worldSeed, ...line });
      traces.set(system.id, lines);
    }
  }
  return { scorer, observations, traces };
}
