import { createHash } from 'node:crypto';
import {
  defineExperimentScorer,
  jsonBlockIds,
  type ScorerRequest,
  type ScorerWorldInput,
  type ScorerWorldResult,
} from '@chi/experiment';
import { type ChatResult, type Decision, InvalidArgumentError } from '@chi/spec';
import { isInfrastructureFailure, type NotebookSource } from '@chi/spec/internal';
import { readHistoryProbe } from '../history/probe-reading';
import { applyNotebookCap, corruptedNotebook } from '../notebook';
import { DIVERGENCE_EXPERIMENT_ID, divergenceCallOf } from './experiment';
import type { DivergenceManifest } from './manifest';
import { divergenceManifestOf } from './manifest';
import type { ArmCall, DivergenceArm } from './protocol';
import { warrantedAnswers } from './warranted';
import { buildDivergenceWorld, type DivergenceWorld } from './world';

/**
 * What the harness did to a notebook around a call (published per call): `swap` happened before
 * the call (the notebook it shows came from the partner instance); the others after it.
 */
export type NotebookOperation =
  | 'none'
  | 'erase'
  | 'sham-restore'
  | 'swap'
  | 'fault-corrupt'
  | 'fault-restore';

/**
 * What the scorer read from one probe: the CHIS entry's task profile, decision vector and the
 * counters of its trajectory (`divergenceEntries` assembles the entry from them).
 */
export interface DivergenceProbeScore {
  /** Updates of the trajectory so far, this probe's included in none. */
  readonly eventCount: number;
  /** Calls of the trajectory so far, this one included. */
  readonly scheduledOperations: number;
  /** From the trajectory's first call's start to this probe's finish. */
  readonly elapsedWallMs: number;
  readonly accuracy: number;
  readonly unknownRate: number;
  readonly invalidRate: number;
  readonly washoutKnown: number;
  /** The primary choices: A = 0, unknown = 0.5, B = 1, invalid = null. */
  readonly decisionVector: readonly (number | null)[];
  /** Calls since the trajectory's previous probe, this one included, and what they charged. */
  readonly requests: number;
  readonly costUsd: number;
}

/**
 * One call of one instance as the divergence scorer scored it: a trace line of
 * `divergenceScorer.scoreWorld` (flat cells, so the report's trace tables could hold it). The
 * probe cells (`eventCount` to `costUsd`, `decision1`..) are null on updates and operations.
 */
export interface DivergenceCallLine {
  readonly [cell: string]: string | number | boolean | null;
  readonly requestId: string;
  readonly arm: string;
  readonly checkpoint: number;
  readonly role: ArmCall['role'];
  /** The CHIS condition a probe measures; null for updates and operations. */
  readonly condition: string | null;
  /** The harness operations around the call ({@link NotebookOperation}), joined by `+`. */
  readonly operations: string;
  /** SHA-256 of the notes the request showed (after any fault corruption). */
  readonly notesShownSha256: string;
  /** The instance's notebook after this call and any operation that followed it. */
  readonly notebookSha256: string;
  readonly notebookBytes: number;
  /** When the call finished (the CHIS entry's `recordedAt` for a probe). */
  readonly finishedAt: string;
  readonly eventCount: number | null;
  readonly scheduledOperations: number | null;
  readonly elapsedWallMs: number | null;
  readonly accuracy: number | null;
  readonly unknownRate: number | null;
  readonly invalidRate: number | null;
  readonly washoutKnown: number | null;
  readonly requests: number | null;
  readonly costUsd: number | null;
}

/** The per-world columns of {@link divergenceScorer}. */
const COLUMNS = ['calls', 'probes', 'accuracy'] as const;

/** The decision-vector coding of the pilot: A = 0, unknown = 0.5, B = 1, invalid = null. */
function coordinate(decision: Decision): number | null {
  return decision === 'A' ? 0 : decision === 'B' ? 1 : decision === 'unknown' ? 0.5 : null;
}

function rate(count: number, total: number): number {
  return total === 0 ? 0 : count / total;
}

/** The notebook one call of an instance sees, from its source or the instance's current one. */
function notesBefore(
  source: NotebookSource | undefined,
  current: string,
  written: ReadonlyMap<string, string>,
): string {
  if (source === undefined) return current;
  if (source.kind === 'empty') return '';
  return written.get(source.requestId) ?? '';
}

/** The harness operations around one call, as the published call record names them. */
function operationsOf(
  source: NotebookSource | undefined,
  arm: DivergenceArm,
  call: ArmCall,
): NotebookOperation[] {
  const operations: NotebookOperation[] = [];
  // The only request-named notebook of a swap arm is its partner's.
  if (source?.kind === 'request' && arm.operation.kind === 'swap') operations.push('swap');
  if (source?.kind === 'corrupted') operations.push('fault-corrupt', 'fault-restore');
  if (call.role === 'operation')
    operations.push(arm.operation.kind === 'erase' ? 'erase' : 'sham-restore');
  return operations;
}

/** One resolved call with its place in the protocol. */
interface Call {
  readonly request: ScorerRequest;
  readonly result: ChatResult;
  readonly arm: DivergenceArm;
  readonly call: ArmCall;
}

/**
 * The resolved calls of one system on one world in the sequential protocol's order (checkpoint,
 * then arm in manifest order, then plan order); a request that never resolved is left out.
 */
function callsInOrder(manifest: DivergenceManifest, requests: readonly ScorerRequest[]): Call[] {
  const arms = new Map(manifest.arms.map((arm, index) => [arm.id, index]));
  const keyed = requests.flatMap((request, index) => {
    const result = request.result ?? null;
    if (result === null) return [];
    const { arm, call } = divergenceCallOf(request.request, manifest);
    return [
      {
        entry: { request, result, arm, call },
        key: [call.checkpoint, arms.get(arm.id) ?? 0, index],
      },
    ];
  });
  keyed.sort((a, b) => {
    for (let i = 0; i < a.key.length; i += 1) {
      const d = (a.key[i] as number) - (b.key[i] as number);
      if (d !== 0) return d;
    }
    return 0;
  });
  return keyed.map((keyedCall) => keyedCall.entry);
}

/**
 * The IDs a probe asked, read from the QUESTIONS block of its user messages as sent (the fixed
 * panel, primary then washout choices); null when it was never rendered or has no such block.
 */
function askedIds(request: ScorerRequest): string[] | null {
  if (request.messages === null) return null;
  const user = request.messages
    .filter((message) => message.role === 'user')
    .map((message) => message.content)
    .join('\n');
  try {
    return jsonBlockIds(user, 'QUESTIONS') ?? null;
  } catch (error) {
    throw new InvalidArgumentError(
      'request',
      `cannot read what request ${request.request.requestId} asked: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/**
 * What one probe's reply says about the IDs it asked (an environment it did not ask is
 * invalid), against the warranted answers of its arm and checkpoint.
 */
function probeReading(
  manifest: DivergenceManifest,
  world: DivergenceWorld,
  { request, arm, call }: Call,
): Pick<
  DivergenceProbeScore,
  'accuracy' | 'unknownRate' | 'invalidRate' | 'washoutKnown' | 'decisionVector'
> {
  const reading = readHistoryProbe(
    request.reply === null
      ? { kind: 'unusable', reason: request.unusableReason ?? 'no reply' }
      : { kind: 'reply', text: request.reply },
    askedIds(request),
    { environments: [...world.panel] },
  );
  const primary = reading.decisions.slice(0, world.primary.length);
  const washout = reading.decisions.slice(world.primary.length);
  const warranted = warrantedAnswers(world, arm, call.checkpoint, manifest);
  const correct = primary.filter((decision, index) => decision === warranted[index]).length;
  const count = (decision: Decision) => primary.filter((d) => d === decision).length;
  return {
    accuracy: rate(correct, primary.length),
    unknownRate: rate(count('unknown'), primary.length),
    invalidRate: rate(count('invalid'), primary.length),
    washoutKnown: rate(
      washout.filter((decision, index) => decision === world.washoutFavored[index]).length,
      washout.length,
    ),
    decisionVector: primary.map(coordinate),
  };
}

/** The probe cells of a trace line, null on updates and operations. */
function probeCells(
  score: DivergenceProbeScore | null,
  primary: number,
): Record<string, number | null> {
  const decisions = Object.fromEntries(
    Array.from({ length: primary }, (_, index) => [
      `decision${index + 1}`,
      score?.decisionVector[index] ?? null,
    ]),
  );
  return {
    eventCount: score?.eventCount ?? null,
    scheduledOperations: score?.scheduledOperations ?? null,
    elapsedWallMs: score?.elapsedWallMs ?? null,
    accuracy: score?.accuracy ?? null,
    unknownRate: score?.unknownRate ?? null,
    invalidRate: score?.invalidRate ?? null,
    washoutKnown: score?.washoutKnown ?? null,
    ...decisions,
    requests: score?.requests ?? null,
    costUsd: score?.costUsd ?? null,
  };
}

/** The running counters of one trajectory (instance). */
interface Counter {
  events: number;
  calls: number;
  since: number;
  cost: number;
  readonly firstMs: number;
}

/** The last world built: the systems of a world are scored one after another. */
let lastWorld: DivergenceWorld | null = null;
function worldOf(seed: number): DivergenceWorld {
  if (lastWorld?.seed !== seed) lastWorld = buildDivergenceWorld(seed);
  return lastWorld;
}

/** What the fold over one system's calls on one world carries from call to call. */
interface WorldFold {
  readonly manifest: DivergenceManifest;
  readonly world: DivergenceWorld;
  /** The notebook cap of the system (null for an uncapped one). */
  readonly cap: number | null;
  /** Each instance's notebook now, by arm. */
  readonly current: Map<string, string>;
  /** The notebook each update wrote, by request ID (a swap shows its partner's). */
  readonly written: Map<string, string>;
  readonly counters: Map<string, Counter>;
}

/**
 * The notebook a call showed and the one it left, under the runner's rule: an update's reply,
 * capped, becomes the notebook unless it failed for the infrastructure's reasons; the erasure's
 * operation call leaves it empty; a swap shows the partner's, the fault probe a corrupted copy.
 */
function notebookStep(fold: WorldFold, { request, result, arm, call }: Call) {
  const source = request.request.notebookSource;
  const before = notesBefore(source, fold.current.get(arm.id) ?? '', fold.written);
  const shown = source?.kind === 'corrupted' ? corruptedNotebook(before) : before;
  let after = before;
  if (call.role === 'update' && !isInfrastructureFailure(result)) {
    after = applyNotebookCap(result.text ?? '', fold.cap).text;
    fold.written.set(request.request.requestId, after);
  } else if (call.role === 'operation' && arm.operation.kind === 'erase') after = '';
  fold.current.set(arm.id, after);
  return { shown, notebook: applyNotebookCap(after, fold.cap) };
}

/** Counts one call in its trajectory; a probe's score, which restarts the since-probe counts. */
function countStep(fold: WorldFold, entry: Call): DivergenceProbeScore | null {
  const { result, arm, call } = entry;
  const counter = fold.counters.get(arm.id) ?? {
    events: 0,
    calls: 0,
    since: 0,
    cost: 0,
    firstMs: Date.parse(result.startedAt),
  };
  fold.counters.set(arm.id, counter);
  counter.calls += 1;
  counter.since += 1;
  counter.cost += result.chargedUsd;
  if (call.role === 'update') counter.events += 1;
  if (call.role !== 'probe') return null;
  const probe = {
    eventCount: counter.events,
    scheduledOperations: counter.calls,
    elapsedWallMs: Math.max(0, Date.parse(result.finishedAt) - counter.firstMs),
    ...probeReading(fold.manifest, fold.world, entry),
    requests: counter.since,
    costUsd: counter.cost,
  };
  counter.since = 0;
  counter.cost = 0;
  return probe;
}

/** The trace line of one call. */
function callLine(fold: WorldFold, entry: Call): DivergenceCallLine {
  const { request, result, arm, call } = entry;
  const { shown, notebook } = notebookStep(fold, entry);
  const probe = countStep(fold, entry);
  return {
    requestId: request.request.requestId,
    arm: arm.id,
    checkpoint: call.checkpoint,
    role: call.role,
    condition: call.condition,
    operations: operationsOf(request.request.notebookSource, arm, call).join('+'),
    notesShownSha256: createHash('sha256').update(shown, 'utf8').digest('hex'),
    notebookSha256: notebook.sha256,
    notebookBytes: notebook.bytes,
    finishedAt: result.finishedAt,
    ...probeCells(probe, fold.world.primary.length),
  } as DivergenceCallLine;
}

/**
 * Scores one system on one world: folds every instance's notebook (`notebookStep`), reads every
 * probe against its warranted answers and counts each trajectory's calls, updates and charges
 * (`countStep`). One trace line per resolved call, in protocol order; the values are the calls,
 * the probes and their mean accuracy.
 */
function scoreDivergenceWorld(input: ScorerWorldInput<DivergenceManifest>): ScorerWorldResult {
  const manifest = input.params;
  const system = manifest.systems.find((candidate) => candidate.id === input.systemId);
  const fold: WorldFold = {
    manifest,
    world: worldOf(input.worldSeed),
    cap: system?.uncappedNotebook === true ? null : manifest.notebookCapBytes,
    current: new Map(),
    written: new Map(),
    counters: new Map(),
  };
  const traces = callsInOrder(manifest, input.requests).map((entry) => callLine(fold, entry));
  const accuracies = traces.flatMap((line) => (line.accuracy === null ? [] : [line.accuracy]));
  return {
    values: {
      calls: traces.length,
      probes: accuracies.length,
      accuracy:
        accuracies.length === 0
          ? null
          : accuracies.reduce((sum, value) => sum + value, 0) / accuracies.length,
    },
    traces,
  };
}

/** The probe score a trace line carries, or null on an update or operation. */
export function probeScoreOf(line: DivergenceCallLine): DivergenceProbeScore | null {
  if (line.role !== 'probe') return null;
  const decisionVector: (number | null)[] = [];
  for (let index = 1; `decision${index}` in line; index += 1)
    decisionVector.push(line[`decision${index}`] as number | null);
  return {
    eventCount: line.eventCount as number,
    scheduledOperations: line.scheduledOperations as number,
    elapsedWallMs: line.elapsedWallMs as number,
    accuracy: line.accuracy as number,
    unknownRate: line.unknownRate as number,
    invalidRate: line.invalidRate as number,
    washoutKnown: line.washoutKnown as number,
    decisionVector,
    requests: line.requests as number,
    costUsd: line.costUsd as number,
  };
}

/**
 * The scorer of the divergence protocol (`ExperimentScorer` of `@chi/experiment`, per world):
 * for one system on one world, every instance's calls in protocol order with their notebooks
 * folded and every probe read against its warranted answers, one trace line per call
 * ({@link DivergenceCallLine}). Its parameters are the manifest's divergence view
 * (`divergenceManifestOf`): arms, operations, systems and notebook cap. The release and
 * `chi verify` feed it through the report's per-world pass (`scoreModule`, the one
 * `ScorerRequest` builder) and build the CHIS entries from its lines; the run-level analysis
 * (series, dynamics, simultaneous bands) stays the protocol's own (`analyzeDivergence`;
 * docs/architecture.md says why it is not the report's analysis hook).
 */
export const divergenceScorer = defineExperimentScorer<DivergenceManifest>({
  specificationVersion: 'chi-scorer-v1',
  experimentId: DIVERGENCE_EXPERIMENT_ID,
  title: 'Experience divergence (the v0.1 divergence protocol)',
  parametersOf: (manifest) =>
    manifest.experiments.divergence == null ? null : divergenceManifestOf(manifest),
  notes: [
    'Per world and system: the calls scored, the probes among them and the mean task accuracy of those probes on the four primary choices against the warranted answers, over every arm and checkpoint. A summary of what was scored, not a result of the protocol.',
    "The protocol's results (excess divergence per checkpoint, the dynamics, task accuracy per arm and checkpoint, with pointwise intervals and simultaneous bands) are its own analysis over the CHIS entries built from this scorer's trace lines, with incomplete instances excluded (divergence.json).",
  ],
  columns: COLUMNS,
  estimands: [{ column: 'accuracy', label: 'Task accuracy, mean over every probe of every arm' }],
  scoreWorld: scoreDivergenceWorld,
});
