import type { ScorerRequest } from '@chi/experiment';
import { computeBlockStatuses } from '@chi/run';
import { jsonBlockIds } from '@chi/run/internal';
import { EQUAL_ALPHAS } from '@chi/scoring';
import {
  type ChatMessage,
  InvalidArgumentError,
  type PlannedBlock,
  type PlannedRequest,
  type QualityAlphas,
  RunFolderDamagedError,
} from '@chi/spec';
import { MemoryTaxonomyCounter } from './analysis/memory-taxonomy';
import type { BlockRow } from './chart-data';
import type { BehaviorObservation, BehaviorTraceLine } from './experiment-scorers/behavior-scorer';
import type { AnyBlockScorer, ObservationBase, ScoreKey } from './experiment-scorers/block-scorer';
import type { HistoryObservation, HistoryTraceLine } from './experiment-scorers/history-scorer';
import {
  type MemoryObservation,
  type MemoryTraceLine,
  type ProbeNotebooks,
  probeNotebooksOf,
} from './experiment-scorers/memory-scorer';
import { blockScorerOf } from './experiment-scorers/pilot-scorers';
import { scorerRequestOf } from './experiment-scorers/scorer-request';
import { PackedObservations } from './packed-observations';
import { groupRequestOrdinals, requestsAt } from './plan-view';
import { PlannedOutcomes } from './planned-outcomes';
import { type RunRecords, requestRecordFile } from './run-folder';
import { compareUtf8 } from './sha256-sums';

export type {
  BehaviorObservation,
  BehaviorTraceLine,
  HistoryObservation,
  HistoryTraceLine,
  MemoryObservation,
  MemoryTraceLine,
  ObservationBase,
  ProbeNotebooks,
};

/**
 * Everything scored from a run: each pilot experiment's observations and traces (the part of it
 * named by its block scorer's `scoreKey`) and the status of every block.
 *
 * The scores {@link scoreRun} returns hold the observations packed: each read of `memory`,
 * `history` or `behavior` materialises a new array of new objects (equal every time), so read a
 * list once into a variable and drop it when done rather than reading it in a loop.
 */
export interface RunScores {
  readonly memory: readonly MemoryObservation[];
  readonly history: readonly HistoryObservation[];
  readonly behavior: readonly BehaviorObservation[];
  readonly memoryTraces: readonly MemoryTraceLine[];
  readonly historyTraces: readonly HistoryTraceLine[];
  readonly behaviorTraces: readonly BehaviorTraceLine[];
  readonly blocks: readonly BlockRow[];
  /**
   * Notebook text per memory observation key `<system>|<blockId>|<condition>` (case examples):
   * null for the oracle control, `''` for the blank one. Read from the run folder when asked for,
   * so the scores never hold every notebook of the run.
   */
  readonly probeNotebooks: ProbeNotebooks;
  /**
   * The failure taxonomy of the memory traces, counted as they were produced (with a trace sink
   * the trace lists are empty, so the analysis reads this instead). Absent: count the lists.
   */
  readonly memoryTaxonomy?: MemoryTaxonomyCounter;
}

/**
 * Receives the trace lines of {@link scoreRun} as they are produced, in the order the returned
 * lists would hold them. With a sink the returned trace lists are empty: a caller that writes
 * traces to files (the release) never holds a whole run's traces.
 */
export interface TraceSink {
  memory(line: MemoryTraceLine): void;
  history(line: HistoryTraceLine): void;
  behavior(line: BehaviorTraceLine): void;
}

/** Options of {@link scoreRun}. */
export interface ScoreRunOptions {
  /** Q_M factor weights; the protocol's 1/6 each by default. */
  readonly alphas?: QualityAlphas;
  /** Where trace lines go as they are produced; into the returned lists without one. */
  readonly traces?: TraceSink;
}

/**
 * Block status with the runner's rule (`computeBlockStatuses` of `@chi/run`, the function that
 * writes `blocks.json`), recomputed from the attempt log block by block: the release, `chi verify`
 * and the run agree on which blocks are complete.
 */
function blockStatuses(records: RunRecords, outcomes: PlannedOutcomes): BlockRow[] {
  return records.plan.blocks.flatMap((block) =>
    computeBlockStatuses(
      { ...records.plan, blocks: [block] },
      outcomes.outcomesOf(block.requestIds),
    ).map((status) => ({
      blockId: status.blockId,
      experiment: status.experiment,
      worldSeed: status.worldSeed,
      load: status.load,
      status: status.status,
      reasons: status.reasons,
    })),
  );
}

/** The IDs of the named JSON block of a request's user messages; the error names its file. */
function idsAsked(
  records: RunRecords,
  requestId: string,
  messages: readonly ChatMessage[],
  blockName: string,
): string[] | null {
  const user = messages
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

/** What scoring one block reads: the run, every request's outcome, and where results go. */
interface BlockScoring {
  readonly records: RunRecords;
  readonly outcomes: PlannedOutcomes;
  readonly alphas: QualityAlphas;
  readonly out: ScoreCollector;
}

/** One system's requests in one block. */
interface SystemRequests {
  readonly systemId: string;
  readonly planned: readonly PlannedRequest[];
}

/** Collects observations (packed as they come), and hands traces to the sink (or a list). */
class ScoreCollector {
  readonly memory = new PackedObservations<MemoryObservation>();
  readonly history = new PackedObservations<HistoryObservation>();
  readonly behavior = new PackedObservations<BehaviorObservation>();
  readonly memoryTraces: MemoryTraceLine[] = [];
  readonly historyTraces: HistoryTraceLine[] = [];
  readonly behaviorTraces: BehaviorTraceLine[] = [];
  readonly taxonomy = new MemoryTaxonomyCounter();
  readonly traces: TraceSink;

  constructor(sink: TraceSink | undefined) {
    const memory =
      sink === undefined
        ? (line: MemoryTraceLine) => this.memoryTraces.push(line)
        : sink.memory.bind(sink);
    this.traces = {
      memory: (line) => {
        this.taxonomy.add(line);
        memory(line);
      },
      history:
        sink === undefined ? (line) => this.historyTraces.push(line) : sink.history.bind(sink),
      behavior:
        sink === undefined ? (line) => this.behaviorTraces.push(line) : sink.behavior.bind(sink),
    };
  }

  /** A block scorer's observations into its part of the scores, its traces to the sink. */
  add(key: ScoreKey, observations: readonly ObservationBase[], traces: readonly unknown[]): void {
    (this[key] as PackedObservations<ObservationBase>).push(observations);
    const sink = this.traces[key] as (line: unknown) => void;
    for (const line of traces) sink(line);
  }
}

/** One system's requests with their messages and usable replies, as a scorer reads them. */
function scorerRequests(
  context: BlockScoring,
  planned: readonly PlannedRequest[],
): ScorerRequest[] {
  return planned.map((request) => scorerRequestOf(context.records, request, context.outcomes));
}

/** A scoring error naming the world file the block was scored against (a damaged file: its own). */
function scoringError(
  context: BlockScoring,
  scorer: AnyBlockScorer,
  block: PlannedBlock,
  systemId: string,
  error: unknown,
): Error {
  // A world, request or payload that cannot be scored is a damaged run folder (exit 5), named.
  if (InvalidArgumentError.isInstance(error) && /^(worlds|requests|payloads)\//.test(error.field))
    return new RunFolderDamagedError(error.field, error.message.slice(error.field.length + 2), {
      cause: error,
    });
  if (RunFolderDamagedError.isInstance(error)) return error;
  return new RunFolderDamagedError(
    scorer.worldFile(context.records, block),
    `cannot score block ${block.blockId} for system ${systemId}: ${(error as Error).message}`,
    { cause: error },
  );
}

/** Scores one system's requests in one block against the block's world. */
function scoreSystem(
  context: BlockScoring,
  scorer: AnyBlockScorer,
  block: PlannedBlock,
  world: unknown,
  unit: SystemRequests & { readonly blockComplete: boolean },
): void {
  const { records } = context;
  const result = scorer.scoreBlock({
    world,
    block,
    systemId: unit.systemId,
    blockComplete: unit.blockComplete,
    requests: scorerRequests(context, unit.planned),
    alphas: context.alphas,
    askedIds: (request, blockName) =>
      request.messages === null
        ? null
        : idsAsked(records, request.request.requestId, request.messages, blockName),
  });
  context.out.add(scorer.scoreKey, result.observations, result.traces);
}

/**
 * Scores one block through its experiment's block scorer, system by system (manifest order),
 * reading its world once; an error names the world file it was scored against.
 */
function scoreBlock(
  context: BlockScoring,
  scorer: AnyBlockScorer,
  block: PlannedBlock,
  units: readonly SystemRequests[],
  blockComplete: boolean,
): void {
  const first = units[0];
  if (first === undefined) return;
  let world: unknown;
  try {
    world = scorer.world(context.records, block);
  } catch (error) {
    throw scoringError(context, scorer, block, first.systemId, error);
  }
  for (const unit of units) {
    try {
      scoreSystem(context, scorer, block, world, { ...unit, blockComplete });
    } catch (error) {
      throw scoringError(context, scorer, block, unit.systemId, error);
    }
  }
}

/**
 * The ordinals of each system's planned requests in each block (one pass over the plan, not one
 * per block); a block's requests are parsed when it is scored, not held for the whole scoring.
 */
function plannedBySystemBlock(records: RunRecords): Map<string, number[]> {
  return groupRequestOrdinals(records.plan, (request) => `${request.systemId}|${request.blockId}`);
}

/**
 * Scores a run from its raw records alone: the attempt log's final replies, the rendered
 * requests (what was asked) and the worlds' answer keys, using `@chi/scoring`. Pure: the same
 * records give the same scores, which is what `chi verify` relies on. Blocks are scored in plan
 * order, world by world; traces go to `options.traces` as they are produced when given.
 *
 * A request without a usable reply (a model failure, an infrastructure failure, abandoned, not
 * sent) contributes a `missing` answer for every ID it should have asked about, so each probe is
 * scored exactly once. Whether the observation counts is decided by its block's completeness.
 */
export function scoreRun(records: RunRecords, options: ScoreRunOptions = {}): RunScores {
  // the log folded to line indexes; each outcome is read back from the log when scored
  const outcomes = PlannedOutcomes.fold(records.plan, records.attempts);
  const blocks = blockStatuses(records, outcomes);
  const complete = new Set(blocks.filter((b) => b.status === 'complete').map((b) => b.blockId));
  const started = new Set(blocks.filter((b) => b.status !== 'not_started').map((b) => b.blockId));
  const out = new ScoreCollector(options.traces);
  const context: BlockScoring = { records, outcomes, alphas: options.alphas ?? EQUAL_ALPHAS, out };
  const planned = plannedBySystemBlock(records);
  const systems = records.manifest.systems.map((s) => s.id);
  for (const block of records.plan.blocks) {
    // an experiment added from outside the pilot (`x-...`) is scored by its own ExperimentScorer
    const scorer = blockScorerOf(block.experiment);
    if (scorer === undefined || !started.has(block.blockId)) continue;
    const units = systems
      .map((systemId) => ({
        systemId,
        planned: requestsAt(records.plan, planned.get(`${systemId}|${block.blockId}`)),
      }))
      .filter((unit) => unit.planned.length > 0);
    scoreBlock(context, scorer, block, units, complete.has(block.blockId));
  }
  for (const list of [out.memory, out.history, out.behavior]) list.flush();
  return packedRunScores(out, {
    blocks: [...blocks].sort((a, b) => compareUtf8(a.blockId, b.blockId)),
    probeNotebooks: probeNotebooksOf(records, out.memory),
  });
}

/**
 * The scores {@link scoreRun} returns: observations packed, each list materialised when read.
 * A plain object with getters (own and enumerable), so a spread copy holds the lists as arrays.
 */
function packedRunScores(
  out: ScoreCollector,
  rest: Pick<RunScores, 'blocks' | 'probeNotebooks'>,
): RunScores {
  return {
    get memory() {
      return out.memory.toArray();
    },
    get history() {
      return out.history.toArray();
    },
    get behavior() {
      return out.behavior.toArray();
    },
    memoryTraces: out.memoryTraces,
    historyTraces: out.historyTraces,
    behaviorTraces: out.behaviorTraces,
    blocks: rest.blocks,
    probeNotebooks: rest.probeNotebooks,
    memoryTaxonomy: out.taxonomy,
  };
}
