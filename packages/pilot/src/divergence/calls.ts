import type { ArmCall } from '@chi/experiments/internal';
import {
  type DivergenceCallLine,
  type DivergenceProbeScore,
  divergenceScorer,
  type NotebookOperation,
  probeScoreOf,
} from '@chi/experiments/internal';
import { type ModuleScoringSource, scoreModule } from '@chi/report/internal';
import { computeBlockStatuses, type RequestOutcome } from '@chi/run';
import { type ChatResult, RunFolderDamagedError, type RunPlan } from '@chi/spec';
import { isInfrastructureFailure } from '@chi/spec/internal';
import type { ExcludedInstance } from './analyze';

export type { NotebookOperation } from '@chi/experiments/internal';

/**
 * One resolved call of a divergence run: a trace line of `divergenceScorer` (what it scored of
 * the call) with the result the attempt log records for it. Built by {@link divergenceCalls},
 * never stored; `divergenceEntries` turns the probes into CHIS entries.
 */
export interface DivergenceCallRecord {
  readonly kind: 'divergence-call';
  readonly requestId: string;
  readonly systemId: string;
  readonly worldSeed: number;
  readonly arm: string;
  readonly checkpoint: number;
  readonly role: ArmCall['role'];
  /** The CHIS condition a probe measures; null for updates and operations. */
  readonly condition: string | null;
  /** SHA-256 of the messages as sent, as the request index records it ('' when it has none). */
  readonly requestSha256: string;
  /** SHA-256 of the notes the request showed (after any fault corruption). */
  readonly notesShownSha256: string;
  /** The result the attempt log records. */
  readonly result: ChatResult;
  /** The instance's notebook after this call and any operation that followed it. */
  readonly notebookAfter: { readonly sha256: string; readonly bytes: number };
  readonly operations: readonly NotebookOperation[];
  /** What the scorer read from a probe; null on an update or operation. */
  readonly probe: DivergenceProbeScore | null;
}

/** Why an instance's trajectory stopped before its last call (published; the instance is excluded). */
export type IncompleteInstance = ExcludedInstance;

/**
 * The instances the runner's block rule left incomplete (`computeBlockStatuses` of `@chi/run`
 * over the attempt log: an infrastructure failure, an abandoned request, or a request blocked
 * because one it depends on produced no notebook, such as a swap whose partner failed), with the
 * first request that did not resolve cleanly and the block's reasons.
 */
export function incompleteInstances(
  plan: RunPlan,
  logged: ReadonlyMap<string, RequestOutcome>,
  path: string,
): IncompleteInstance[] {
  const outcomes = new Map(logged);
  const requests = new Map(plan.requests.map((request) => [request.requestId, request]));
  const ended = endedRequests(plan, outcomes, path);
  // Never sent because a request it depends on ended its instance: blocked, as the runner says.
  for (const request of plan.requests)
    if (ended.has(request.requestId) && !outcomes.has(request.requestId))
      outcomes.set(request.requestId, {
        kind: 'blocked',
        by: request.dependsOn.find((id) => ended.has(id)) ?? '',
      });
  return computeBlockStatuses(plan, outcomes)
    .filter((status) => status.status !== 'complete')
    .map((status) => {
      const block = plan.blocks.find((candidate) => candidate.blockId === status.blockId);
      const first = (block?.requestIds ?? []).find((id) => ended.has(id));
      const request = requests.get(first ?? '') ?? requests.get(block?.requestIds[0] ?? '');
      if (request === undefined) throw new Error(`block ${status.blockId} has no requests`);
      return {
        systemId: request.systemId,
        worldSeed: request.worldSeed,
        arm: armOfStep(request.step),
        requestId: request.requestId,
        reason: status.reasons.join('; '),
      };
    });
}

function armOfStep(step: string): string {
  return step.replace(/\.c\d+\.(update|operation|probe)\.\d+$/, '');
}

/**
 * The requests that did not resolve cleanly (an infrastructure failure, an abandoned request) and
 * those never sent because one they depend on is such a request. A request never sent for no
 * such reason means the run is not finished: a damaged folder for the recomputation.
 */
function endedRequests(
  plan: RunPlan,
  outcomes: ReadonlyMap<string, RequestOutcome>,
  path: string,
): Set<string> {
  const ended = new Set<string>();
  for (const request of plan.requests) {
    const outcome = outcomes.get(request.requestId);
    if (outcome?.kind === 'resolved') {
      if (isInfrastructureFailure(outcome.result)) ended.add(request.requestId);
    } else if (outcome?.kind === 'abandoned') ended.add(request.requestId);
    else if (request.dependsOn.some((id) => ended.has(id))) ended.add(request.requestId);
    else {
      const block = plan.blocks.find((candidate) => candidate.blockId === request.blockId);
      const ids = block?.requestIds ?? [];
      const resolved = ids.filter((id) => outcomes.get(id)?.kind === 'resolved').length;
      throw new RunFolderDamagedError(
        path,
        `instance ${request.systemId} world ${request.worldSeed} arm ${armOfStep(request.step)} has ${resolved} of its ${ids.length} calls and no reason it stopped: the run is not finished (resume it with chi pilot --resume)`,
      );
    }
  }
  return ended;
}

/** A call record of one of the scorer's trace lines. */
function callRecordOf(
  line: DivergenceCallLine,
  systemId: string,
  worldSeed: number,
  source: DivergenceScoringSource,
): DivergenceCallRecord {
  const { outcomes } = source;
  const outcome = outcomes.get(line.requestId);
  if (outcome?.kind !== 'resolved')
    throw new Error(`the scorer scored ${line.requestId}, which the log has not resolved`);
  return {
    kind: 'divergence-call',
    requestId: line.requestId,
    systemId,
    worldSeed,
    arm: line.arm,
    checkpoint: line.checkpoint,
    role: line.role,
    condition: line.condition,
    requestSha256: source.requestSha256(line.requestId) ?? '',
    notesShownSha256: line.notesShownSha256,
    result: outcome.result,
    notebookAfter: { sha256: line.notebookSha256, bytes: line.notebookBytes },
    operations: line.operations === '' ? [] : (line.operations.split('+') as NotebookOperation[]),
    probe: probeScoreOf(line),
  };
}

/**
 * What {@link divergenceCalls} reads of a run: the manifest, the plan and the rendered requests
 * (`scoreModule`'s source), every request's logged outcome, and each request's hash as the
 * request index records it.
 */
export interface DivergenceScoringSource extends ModuleScoringSource {
  readonly outcomes: ReadonlyMap<string, RequestOutcome>;
  requestSha256(requestId: string): string | undefined;
}

/**
 * The resolved calls of a divergence run, scored by {@link divergenceScorer} through the report's
 * per-world pass (`scoreModule` of `@chi/report`, with the one `ScorerRequest` builder: each
 * system's requests on a world with their messages as sent, usable replies and logged results),
 * in the sequential protocol's order (world and system in manifest order, then checkpoint, arm
 * and plan order). Calls of `excluded` instances are left out.
 */
export function divergenceCalls(
  source: DivergenceScoringSource,
  excluded: readonly IncompleteInstance[],
): DivergenceCallRecord[] {
  const { outcomes } = source;
  const scored = scoreModule(
    source,
    computeBlockStatuses(source.plan, outcomes),
    divergenceScorer,
    {
      outcome: (requestId) =>
        outcomes.get(requestId) ?? { kind: 'not_sent', reason: 'no attempt recorded' },
    },
  );
  if (scored === null) throw new Error('the run manifest has no experiments.divergence');
  const lines = new Map<string, (DivergenceCallLine & { readonly worldSeed: number })[]>();
  for (const [systemId, traces] of scored.traces)
    for (const line of traces as readonly (DivergenceCallLine & { readonly worldSeed: number })[]) {
      const key = `${systemId}|${line.worldSeed}`;
      const list = lines.get(key) ?? [];
      list.push(line);
      lines.set(key, list);
    }
  const skip = new Set(excluded.map((i) => `${i.systemId}|${i.worldSeed}|${i.arm}`));
  return source.manifest.worldSeeds.flatMap((worldSeed) =>
    source.manifest.systems.flatMap((system) =>
      (lines.get(`${system.id}|${worldSeed}`) ?? [])
        .filter((line) => !skip.has(`${system.id}|${worldSeed}|${line.arm}`))
        .map((line) => callRecordOf(line, system.id, worldSeed, source)),
    ),
  );
}
