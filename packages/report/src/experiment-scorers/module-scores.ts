import {
  type AnyExperimentScorer,
  outcomesFromAttemptLog,
  type RequestOutcome,
  type ScorerCell,
  type ScorerRequest,
} from '@chi/run';
import { usableReply } from '@chi/run/internal';
import type { PlannedRequest } from '@chi/spec';
import type { BlockRow } from '../chart-data';
import { requestsAt } from '../plan-view';
import type { RunRecords } from '../run-folder';
import { feedbackValenceScorer } from './feedback-valence-scorer';
import { goalPersistenceScorer } from './goal-persistence-scorer';

/**
 * The scorers of the toolkit's own opt-in environments. `writeRelease` and `verifyRelease` use
 * them unless given others; a scorer of an added experiment (`x-...`) is passed beside them.
 */
export const BUILT_IN_SCORERS: readonly AnyExperimentScorer[] = [
  goalPersistenceScorer,
  feedbackValenceScorer,
];

/** One system's scored world of a module experiment (a line of `scores/<experiment>.jsonl`). */
export interface ModuleObservation {
  readonly kind: 'module-observation';
  readonly experiment: string;
  readonly systemId: string;
  readonly worldSeed: number;
  /** Every block of the experiment on this world is complete (matched across systems). */
  readonly blockComplete: boolean;
  readonly unusableRequests: readonly { readonly requestId: string; readonly reason: string }[];
  readonly values: Readonly<Record<string, number | null>>;
}

/** What {@link scoreModule} returns: the observations and trace lines of one experiment. */
export interface ModuleScores {
  readonly scorer: AnyExperimentScorer;
  readonly observations: readonly ModuleObservation[];
  /** Trace lines by system ID, each with its world seed. */
  readonly traces: ReadonlyMap<string, readonly Readonly<Record<string, ScorerCell>>[]>;
}

function scorerRequest(
  records: RunRecords,
  request: PlannedRequest,
  outcome: RequestOutcome | undefined,
): ScorerRequest {
  const reply = usableReply(outcome ?? { kind: 'not_sent', reason: 'no attempt recorded' });
  return {
    request,
    messages: records.requests.get(request.requestId)?.messages ?? null,
    reply: reply.kind === 'reply' ? reply.text : null,
    unusableReason: reply.kind === 'reply' ? null : reply.reason,
  };
}

/**
 * The ordinals of the plan's requests of one experiment, by world seed (ascending) then by
 * system: a world's requests are parsed when it is scored, not held for the whole experiment.
 */
function requestsByWorld(
  records: RunRecords,
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
 * Scores one module experiment of a run, world by world: each system's requests on a world with
 * their usable replies (the runner's outcome fold) go to `scorer.scoreWorld`, and only the
 * small per-world result is kept, so the run's requests and replies never sit in memory at once.
 * A world whose blocks never started is skipped; one with an incomplete block is scored and
 * flagged (`blockComplete: false`), and the analysis leaves it out. Null when the run does not
 * include the experiment.
 */
export function scoreModule(
  records: RunRecords,
  blocks: readonly BlockRow[],
  scorer: AnyExperimentScorer,
  outcomes: ReadonlyMap<string, RequestOutcome> = outcomesFromAttemptLog(records.attempts),
): ModuleScores | null {
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
        scorerRequest(records, r, outcomes.get(r.requestId)),
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
