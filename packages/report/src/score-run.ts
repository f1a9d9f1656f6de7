import {
  computeBlockStatuses,
  jsonBlockIds,
  outcomesFromAttemptLog,
  type RequestOutcome,
  runFolderPaths,
  usableReply,
} from '@chi/run';
import {
  EQUAL_ALPHAS,
  indexRecords,
  parseProbeReply,
  parseTaskReply,
  type RecordIndex,
  scoreBehavior,
  scoreHistory,
  scoreMemoryProbes,
  traceBehaviorItems,
  traceHistoryDecisions,
  traceMemoryProbes,
} from '@chi/scoring';
import {
  type BehaviorItemTrace,
  type BehaviorScore,
  type ClassifiedAnswer,
  type ClassifiedTaskAnswer,
  type Decision,
  type HistoryId,
  type HistoryItemTrace,
  type HistoryScore,
  InvalidArgumentError,
  type MemoryProbeTrace,
  type MemoryScore,
  type MemoryWorld,
  type ParsedProbeReply,
  type PlannedBlock,
  type PlannedRequest,
  type QualityAlphas,
} from '@chi/spec';
import type { BlockRow, MemoryCondition } from './chart-data';
import { readHistoryProbe } from './history-probe-reading';
import { memoryWorldKey, type RunRecords, requestRecordFile } from './run-folder';
import { compareUtf8 } from './sha256-sums';

/** Where an observation comes from: one system in one matched block. */
interface ObservationBase {
  readonly systemId: string;
  readonly blockId: string;
  readonly worldSeed: number;
  /** Comparisons use complete blocks only; incomplete observations are kept and published. */
  readonly blockComplete: boolean;
  /** Requests of this system in the block that did not give a usable reply, with the reason. */
  readonly unusableRequests: readonly { readonly requestId: string; readonly reason: string }[];
}

/** One system's memory score on one world, load and condition. */
export interface MemoryObservation extends ObservationBase {
  readonly kind: 'memory-observation';
  readonly condition: MemoryCondition;
  readonly load: number;
  readonly score: MemoryScore;
}

/** One system's history scores on one world (histories A, B, A2 x checkpoints 0-4). */
export interface HistoryObservation extends ObservationBase {
  readonly kind: 'history-observation';
  /** Decisions per history and checkpoint, in environment order. */
  readonly decisions: Readonly<Record<HistoryId, readonly (readonly Decision[])[]>>;
  readonly score: HistoryScore;
}

/** One system's behavioral scores on one world. */
export interface BehaviorObservation extends ObservationBase {
  readonly kind: 'behavior-observation';
  readonly score: BehaviorScore;
}

/** A memory probe trace with where it came from. */
export interface MemoryTraceLine {
  readonly systemId: string;
  readonly condition: MemoryCondition;
  readonly load: number;
  readonly worldSeed: number;
  readonly blockComplete: boolean;
  readonly trace: MemoryProbeTrace;
}

/** A history decision trace with where it came from. */
export interface HistoryTraceLine {
  readonly systemId: string;
  readonly worldSeed: number;
  readonly blockComplete: boolean;
  readonly trace: HistoryItemTrace;
}

/** A behavioral item trace with where it came from. */
export interface BehaviorTraceLine {
  readonly systemId: string;
  readonly worldSeed: number;
  readonly blockComplete: boolean;
  readonly trace: BehaviorItemTrace;
}

/** Everything scored from a run: observations, traces and the status of every block. */
export interface RunScores {
  readonly memory: readonly MemoryObservation[];
  readonly history: readonly HistoryObservation[];
  readonly behavior: readonly BehaviorObservation[];
  readonly memoryTraces: readonly MemoryTraceLine[];
  readonly historyTraces: readonly HistoryTraceLine[];
  readonly behaviorTraces: readonly BehaviorTraceLine[];
  readonly blocks: readonly BlockRow[];
  /** Notebook text per memory observation key `<system>|<blockId>|<condition>` (case examples). */
  readonly probeNotebooks: ReadonlyMap<string, string | null>;
}

/** Options of {@link scoreRun}. */
export interface ScoreRunOptions {
  /** Q_M factor weights; the protocol's 1/6 each by default. */
  readonly alphas?: QualityAlphas;
}

/**
 * The outcome of every request, read from the attempt log with the runner's own fold
 * (`outcomesFromAttemptLog` of `@chi/run`): a request with a result is resolved, one whose
 * attempt was abandoned or left open is abandoned, one without a record was not sent.
 */
function requestOutcomes(records: RunRecords): Map<string, RequestOutcome> {
  return outcomesFromAttemptLog(records.attempts);
}

function outcomeOf(
  outcomes: ReadonlyMap<string, RequestOutcome>,
  requestId: string,
): RequestOutcome {
  return outcomes.get(requestId) ?? { kind: 'not_sent', reason: 'no attempt recorded' };
}

/** The reply text a request can be scored from, or why there is none (`usableReply`). */
function usableText(outcome: RequestOutcome): { text: string } | { reason: string } {
  const reply = usableReply(outcome);
  return reply.kind === 'reply' ? { text: reply.text } : { reason: reply.reason };
}

/**
 * Block status with the runner's rule (`computeBlockStatuses` of `@chi/run`, the function that
 * writes `blocks.json`), recomputed from the attempt log: the release, `chi verify` and the run
 * agree on which blocks are complete.
 */
function blockStatuses(
  records: RunRecords,
  outcomes: ReadonlyMap<string, RequestOutcome>,
): BlockRow[] {
  const full = new Map(
    records.plan.requests.map((request) => [
      request.requestId,
      outcomeOf(outcomes, request.requestId),
    ]),
  );
  return computeBlockStatuses(records.plan, full).map((status) => ({
    blockId: status.blockId,
    experiment: status.experiment,
    worldSeed: status.worldSeed,
    load: status.load,
    status: status.status,
    reasons: status.reasons,
  }));
}

/** The IDs a request asked about, read from its rendered messages; null when it was never rendered. */
function requestedIds(records: RunRecords, requestId: string, blockName: string): string[] | null {
  const rendered = records.requests.get(requestId);
  if (rendered === undefined) return null;
  const user = rendered.messages
    .filter((m) => m.role === 'user')
    .map((m) => m.content)
    .join('\n');
  let ids: string[] | undefined;
  try {
    ids = jsonBlockIds(user, blockName);
  } catch (error) {
    throw new InvalidArgumentError(
      records.requests.pathOf(requestId) ?? requestRecordFile(records, requestId),
      `cannot read what the request asked: ${(error as Error).message}`,
      { cause: error },
    );
  }
  return ids ?? null;
}

/** The current layout's relative paths (for naming a file the folder does not hold). */
const CURRENT_LAYOUT = runFolderPaths('');

function missingProbe(id: string, reason: string): ClassifiedAnswer {
  return { id, status: 'missing', value: null, source: null, detail: `no usable reply: ${reason}` };
}

function missingTask(id: string, reason: string): ClassifiedTaskAnswer {
  return { id, status: 'missing', answer: null, detail: `no usable reply: ${reason}` };
}

/**
 * The world file a block is scored against, for error messages: the file the folder holds (its
 * layout's name), or the current layout's name when it holds none.
 */
function worldFile(records: RunRecords, block: PlannedBlock): string {
  if (block.experiment === 'memory' || block.experiment === 'controls') {
    const key = memoryWorldKey(block.worldSeed, block.load ?? 0);
    return (
      records.memoryWorlds.pathOf(key) ??
      CURRENT_LAYOUT.memoryWorld(block.worldSeed, block.load ?? 0)
    );
  }
  if (block.experiment === 'history') return CURRENT_LAYOUT.historyWorld(block.worldSeed);
  return CURRENT_LAYOUT.behaviorWorld(block.worldSeed);
}

function planFor(records: RunRecords, systemId: string, blockId: string): PlannedRequest[] {
  return records.plan.requests.filter((r) => r.systemId === systemId && r.blockId === blockId);
}

function systemIds(records: RunRecords): string[] {
  return records.manifest.systems.map((s) => s.id);
}

function notebookText(records: RunRecords, requestId: string | undefined): string | null {
  if (requestId === undefined) return null;
  const path = records.notebookOfRequest.get(requestId);
  return path === undefined ? null : (records.notebooks.get(path)?.text ?? null);
}

/**
 * Scores a run from its raw records alone: the attempt log's final replies, the rendered
 * requests (what was asked) and the worlds' answer keys, using `@chi/scoring`. Pure: the same
 * records give the same scores, which is what `chi verify` relies on.
 *
 * A request without a usable reply (a model failure, an infrastructure failure, abandoned, not
 * sent) contributes a `missing` answer for every ID it should have asked about, so each probe is
 * scored exactly once. Whether the observation counts is decided by its block's completeness.
 */
export function scoreRun(records: RunRecords, options: ScoreRunOptions = {}): RunScores {
  const alphas = options.alphas ?? EQUAL_ALPHAS;
  const outcomes = requestOutcomes(records);
  const blocks = blockStatuses(records, outcomes);
  const complete = new Set(blocks.filter((b) => b.status === 'complete').map((b) => b.blockId));
  const started = new Set(blocks.filter((b) => b.status !== 'not_started').map((b) => b.blockId));

  const memory: MemoryObservation[] = [];
  const memoryTraces: MemoryTraceLine[] = [];
  const history: HistoryObservation[] = [];
  const historyTraces: HistoryTraceLine[] = [];
  const behavior: BehaviorObservation[] = [];
  const behaviorTraces: BehaviorTraceLine[] = [];
  const probeNotebooks = new Map<string, string | null>();
  // one validated index of a world's records for every system and condition scored against it
  const worldIndex: { world: MemoryWorld | null; index: RecordIndex | null } = {
    world: null,
    index: null,
  };
  const indexOfWorld = (world: MemoryWorld): RecordIndex => {
    if (worldIndex.world !== world || worldIndex.index === null) {
      worldIndex.world = world;
      worldIndex.index = indexRecords(world.records);
    }
    return worldIndex.index;
  };

  for (const block of records.plan.blocks) {
    if (!started.has(block.blockId)) continue;
    const blockComplete = complete.has(block.blockId);
    for (const systemId of systemIds(records)) {
      const planned = planFor(records, systemId, block.blockId);
      if (planned.length === 0) continue;
      try {
        if (block.experiment === 'memory' || block.experiment === 'controls') {
          const world = records.memoryWorlds.get(memoryWorldKey(block.worldSeed, block.load ?? 0));
          if (world === undefined)
            throw new Error(
              `block ${block.blockId}: no memory world w${block.worldSeed}-n${block.load}`,
            );
          const recordIndex = indexOfWorld(world);
          const conditions = [
            ...new Set(
              planned
                .filter((r) => r.task === 'memory_probe' || r.task === 'memory_probe_oracle')
                .map((r) => r.condition ?? 'notebook'),
            ),
          ];
          for (const condition of conditions) {
            const probes = planned
              .filter(
                (r) =>
                  (r.task === 'memory_probe' || r.task === 'memory_probe_oracle') &&
                  (r.condition ?? 'notebook') === condition,
              )
              .sort((a, b) => (a.batch ?? 0) - (b.batch ?? 0));
            const unusable: { requestId: string; reason: string }[] = [];
            const answers = new Map<string, ClassifiedAnswer>();
            let foundAnswerSet = true;
            let unrequestedCount = 0;
            const notes: string[] = [];
            for (const request of probes) {
              const usable = usableText(outcomeOf(outcomes, request.requestId));
              const ids = requestedIds(records, request.requestId, 'QUESTIONS');
              if ('reason' in usable || ids === null) {
                const reason =
                  'reason' in usable ? usable.reason : 'rendered request has no QUESTIONS block';
                unusable.push({ requestId: request.requestId, reason });
                foundAnswerSet = false;
                continue;
              }
              const parsed = parseProbeReply(usable.text, ids);
              for (const answer of parsed.answers) answers.set(answer.id, answer);
              foundAnswerSet &&= parsed.foundAnswerSet;
              unrequestedCount += parsed.unrequestedCount;
              notes.push(...parsed.notes.map((note) => `${request.requestId}: ${note}`));
            }
            const reasonFor =
              unusable.map((u) => `${u.requestId} ${u.reason}`).join('; ') || 'not asked';
            const merged: ParsedProbeReply = {
              answers: world.answerKey.map(
                (entry) => answers.get(entry.id) ?? missingProbe(entry.id, reasonFor),
              ),
              foundAnswerSet,
              unrequestedCount,
              notes,
            };
            const base = {
              systemId,
              blockId: block.blockId,
              worldSeed: block.worldSeed,
              blockComplete,
              unusableRequests: unusable,
            };
            memory.push({
              kind: 'memory-observation',
              ...base,
              condition,
              load: world.load,
              score: scoreMemoryProbes(world.answerKey, merged, alphas),
            });
            for (const trace of traceMemoryProbes(
              world.records,
              world.answerKey,
              merged,
              recordIndex,
            )) {
              memoryTraces.push({
                systemId,
                condition,
                load: world.load,
                worldSeed: block.worldSeed,
                blockComplete,
                trace,
              });
            }
            const encode = planned.find((r) => r.task === 'memory_encode');
            probeNotebooks.set(
              `${systemId}|${block.blockId}|${condition}`,
              condition === 'oracle'
                ? null
                : condition === 'blank'
                  ? ''
                  : (notebookText(records, encode?.requestId) ?? ''),
            );
          }
        } else if (block.experiment === 'history') {
          const world = records.historyWorlds.get(block.worldSeed);
          if (world === undefined)
            throw new Error(`block ${block.blockId}: no history world w${block.worldSeed}`);
          const unusable: { requestId: string; reason: string }[] = [];
          const grid = (history: HistoryId): Decision[][] =>
            [0, 1, 2, 3, 4].map((checkpoint) => {
              const request = planned.find(
                (r) =>
                  r.task === 'history_probe' &&
                  r.history === history &&
                  r.checkpoint === checkpoint,
              );
              if (request === undefined) return world.environments.map(() => 'invalid' as const);
              const reading = readHistoryProbe(
                usableReply(outcomeOf(outcomes, request.requestId)),
                requestedIds(records, request.requestId, 'QUESTIONS'),
                world,
              );
              if (reading.unusableReason !== null)
                unusable.push({ requestId: request.requestId, reason: reading.unusableReason });
              return [...reading.decisions];
            });
          const decisions = { A: grid('A'), B: grid('B'), A2: grid('A2') };
          const observations = { validAnswers: world.validAnswers, decisions };
          const base = {
            systemId,
            blockId: block.blockId,
            worldSeed: block.worldSeed,
            blockComplete,
            unusableRequests: unusable,
          };
          history.push({
            kind: 'history-observation',
            ...base,
            decisions,
            score: scoreHistory(observations),
          });
          for (const trace of traceHistoryDecisions(observations))
            historyTraces.push({ systemId, worldSeed: block.worldSeed, blockComplete, trace });
        } else if (block.experiment === 'behavior') {
          // Experiments added from outside the pilot (`x-...`) are scored by their own code.
          const itemSet = records.behaviorItems.get(block.worldSeed);
          if (itemSet === undefined)
            throw new Error(`block ${block.blockId}: no behavioral items w${block.worldSeed}`);
          const unusable: { requestId: string; reason: string }[] = [];
          const answers: ClassifiedTaskAnswer[] = [];
          for (const half of [1, 2] as const) {
            const request = planned.find((r) => r.task === 'behavior_half' && r.half === half);
            const fallbackIds = itemSet.items
              .filter((i) => i.half === half)
              .sort((a, b) => a.position - b.position)
              .map((i) => i.id);
            const usable =
              request === undefined
                ? { reason: 'not planned' }
                : usableText(outcomeOf(outcomes, request.requestId));
            const ids =
              request === undefined ? null : requestedIds(records, request.requestId, 'ITEMS');
            if ('reason' in usable || ids === null) {
              const reason = 'reason' in usable ? usable.reason : 'no ITEMS block';
              if (request !== undefined) unusable.push({ requestId: request.requestId, reason });
              answers.push(...fallbackIds.map((id) => missingTask(id, reason)));
              continue;
            }
            answers.push(...parseTaskReply(usable.text, ids).answers);
          }
          const base = {
            systemId,
            blockId: block.blockId,
            worldSeed: block.worldSeed,
            blockComplete,
            unusableRequests: unusable,
          };
          behavior.push({
            kind: 'behavior-observation',
            ...base,
            score: scoreBehavior(itemSet, answers),
          });
          for (const trace of traceBehaviorItems(itemSet, answers))
            behaviorTraces.push({ systemId, worldSeed: block.worldSeed, blockComplete, trace });
        }
      } catch (error) {
        if (
          InvalidArgumentError.isInstance(error) &&
          /^(worlds|requests|payloads)\//.test(error.field)
        )
          throw error;
        throw new InvalidArgumentError(
          worldFile(records, block),
          `cannot score block ${block.blockId} for system ${systemId}: ${(error as Error).message}`,
          { cause: error },
        );
      }
    }
  }
  return {
    memory,
    history,
    behavior,
    memoryTraces,
    historyTraces,
    behaviorTraces,
    blocks: [...blocks].sort((a, b) => compareUtf8(a.blockId, b.blockId)),
    probeNotebooks,
  };
}
