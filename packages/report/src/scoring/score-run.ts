import type { ExperimentScores, ObservationBase, RunScores, TraceLineBase } from '@chi/analysis';
import type { BlockRow } from '@chi/analysis/internal';
import { compareUtf8 } from '@chi/analysis/internal';
import type { AnyExperimentScorer, ScorerRequest } from '@chi/experiment';
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
import { scoreModule } from '../experiment-scorers/module-scores';
import type { ReportScorer } from '../experiment-scorers/scorer-host';
import {
  BUILT_IN_SCORERS,
  BUILT_IN_SCORES_EXTENSIONS,
  checkedScorers,
} from '../experiment-scorers/scorer-registry';
import { scorerRequestOf } from '../experiment-scorers/scorer-request';
import { PackedObservations } from '../run-folder/packed-observations';
import { groupRequestOrdinals, requestsAt } from '../run-folder/plan-view';
import { PlannedOutcomes } from '../run-folder/planned-outcomes';
import type { RunRecords } from '../run-folder/run-folder';
import { requestRecordFile } from '../run-folder/run-integrity';
import type { ScoresExtension, ScoresExtensionRun } from './score-extras';

/**
 * Receives the trace lines of {@link scoreRun} as they are produced, in the order the returned
 * lists would hold them, with the ID of the experiment whose scorer produced them (a sink routes a
 * line by that ID, to the trace file its scorer's `blocks.traceFile` names). With a sink the
 * returned trace lists are empty: a caller that writes traces to files (the release) never holds
 * a whole run's traces.
 */
export interface TraceSink {
  trace(experimentId: string, line: TraceLineBase): void;
}

/** Options of {@link scoreRun}. */
export interface ScoreRunOptions {
  /** Q_M factor weights; the protocol's 1/6 each by default. */
  readonly alphas?: QualityAlphas;
  /** Where trace lines go as they are produced; into the returned lists without one. */
  readonly traces?: TraceSink;
  /**
   * The scorers fed in the pass (default `BUILT_IN_SCORERS`); an added experiment passes its own
   * beside them. Two scorers of one experiment or one block kind: `InvalidArgumentError`.
   */
  readonly scorers?: readonly AnyExperimentScorer[];
  /**
   * What an experiment's scores carry beyond observations and traces, by experiment ID (default:
   * the toolkit's own, memory's probe notebooks and taxonomy); a scorer without one gets `{}`.
   */
  readonly extensions?: ReadonlyMap<string, ScoresExtension>;
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

/**
 * Where a block's results go, scorer by scorer in the order they are produced: the collector of
 * {@link scoreRun}, or (on a worker thread, `scoreRunBlocks`) a list posted to the main thread.
 */
export interface BlockResultSink {
  add(
    experimentId: string,
    observations: readonly ObservationBase[],
    traces: readonly TraceLineBase[],
  ): void;
}

/** One result of {@link BlockResultSink.add}, as data. */
export interface BlockResult {
  readonly experimentId: string;
  readonly observations: readonly ObservationBase[];
  readonly traces: readonly TraceLineBase[];
}

/** What scoring one block reads: the run, every request's outcome, and where results go. */
interface BlockScoring {
  readonly records: RunRecords;
  readonly outcomes: PlannedOutcomes;
  readonly alphas: QualityAlphas;
  readonly out: BlockResultSink;
}

/** One system's requests in one block. */
interface SystemRequests {
  readonly systemId: string;
  readonly planned: readonly PlannedRequest[];
}

/**
 * Collects observations (packed as they come) by experiment ID, and hands each trace line to its
 * experiment's scores extension, if any, and to the sink (or the experiment's list).
 */
class ScoreCollector implements BlockResultSink {
  readonly #observations = new Map<string, PackedObservations<ObservationBase>>();
  readonly #traces = new Map<string, TraceLineBase[]>();
  readonly #extensions = new Map<string, ScoresExtensionRun>();
  readonly #sink: TraceSink | undefined;

  constructor(
    records: RunRecords,
    scorers: readonly ReportScorer[],
    options: Pick<ScoreRunOptions, 'traces' | 'extensions'>,
  ) {
    this.#sink = options.traces;
    const extensions = options.extensions ?? BUILT_IN_SCORES_EXTENSIONS;
    for (const { experimentId } of scorers) {
      this.#observations.set(experimentId, new PackedObservations<ObservationBase>());
      this.#traces.set(experimentId, []);
      const extension = extensions.get(experimentId);
      if (extension !== undefined) this.#extensions.set(experimentId, extension.start(records));
    }
  }

  /** A scorer's block observations into its part of the scores, its traces to the sink. */
  add(
    experimentId: string,
    observations: readonly ObservationBase[],
    traces: readonly TraceLineBase[],
  ): void {
    this.#observations.get(experimentId)?.push(observations);
    const list = this.#traces.get(experimentId) ?? [];
    const extension = this.#extensions.get(experimentId);
    for (const line of traces) {
      // folded as they pass: the sink keeps no list
      extension?.trace(line);
      if (this.#sink === undefined) list.push(line);
      else this.#sink.trace(experimentId, line);
    }
  }

  /** Packs what is left of every list. */
  flush(): void {
    for (const list of this.#observations.values()) list.flush();
  }

  /** An experiment's observations, materialised now ([] for one without a per-block scorer). */
  observations(experimentId: string): ObservationBase[] {
    return this.#observations.get(experimentId)?.toArray() ?? [];
  }

  /** An experiment's trace lines ([] with a sink). */
  traces(experimentId: string): TraceLineBase[] {
    return this.#traces.get(experimentId) ?? [];
  }

  /** What an experiment's scores extension gathered (`{}` without one); call once, after flush. */
  extras(experimentId: string): Readonly<Record<string, unknown>> {
    return this.#extensions.get(experimentId)?.finish(() => this.observations(experimentId)) ?? {};
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
  scorer: ReportScorer,
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
    scorer.blocks?.worldFile(context.records, block) ?? block.blockId,
    `cannot score block ${block.blockId} for system ${systemId}: ${(error as Error).message}`,
    { cause: error },
  );
}

/** Scores one system's requests in one block against the block's world. */
function scoreSystem(
  context: BlockScoring,
  scorer: ReportScorer,
  block: PlannedBlock,
  world: unknown,
  unit: SystemRequests & { readonly blockComplete: boolean },
): void {
  const { records } = context;
  const scoring = scorer.blocks;
  if (scoring === undefined) return;
  const result = scoring.scoreBlock({
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
  context.out.add(
    scorer.experimentId,
    result.observations as readonly ObservationBase[],
    result.traces as readonly TraceLineBase[],
  );
}

/**
 * Scores one block through its experiment's block scorer, system by system (manifest order),
 * reading its world once; an error names the world file it was scored against.
 */
function scoreBlock(context: BlockScoring, unit: BlockUnit): void {
  const { scorer, block, units, blockComplete } = unit;
  const first = units[0];
  if (first === undefined) return;
  let world: unknown;
  try {
    world = scorer.blocks?.world(context.records, block);
  } catch (error) {
    throw scoringError(context, scorer, block, first.systemId, error);
  }
  for (const system of units) {
    try {
      scoreSystem(context, scorer, block, world, { ...system, blockComplete });
    } catch (error) {
      throw scoringError(context, scorer, block, system.systemId, error);
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
 * requests (what was asked) and the worlds (read from the run folder or regenerated from the
 * seed), through every scorer of `options.scorers` (default `BUILT_IN_SCORERS`). Pure: the same
 * records give the same scores, which is what `chi verify` relies on.
 *
 * One pass: the attempt log is folded once (`PlannedOutcomes`, a line index per request) and
 * every scorer reads its replies back from that fold. Blocks are scored in plan order by the
 * scorer whose per-block capability claims their kind, traces going to `options.traces` as they
 * are produced; then every per-world scorer scores its experiment world by world.
 *
 * A request without a usable reply (a model failure, an infrastructure failure, abandoned, not
 * sent) contributes a `missing` answer for every ID it should have asked about, so each probe is
 * scored exactly once. Whether the observation counts is decided by its block's completeness.
 */
export function scoreRun(records: RunRecords, options: ScoreRunOptions = {}): RunScores {
  const run = startScoring(records, options);
  for (const unit of blockUnits(run.context, run.scorers, run.blocks))
    scoreBlock(run.context, unit);
  return finishScoring(records, run);
}

/**
 * How the started blocks are shared between the main thread and a worker thread: in plan order,
 * block `i` (counting only the blocks a scorer claims) is the worker's when `i % 2 === 1`.
 * Alternating keeps both threads busy through the whole scoring, whatever the kinds' order.
 */
function isWorkerBlock(index: number): boolean {
  return index % 2 === 1;
}

/**
 * {@link scoreRun} with every other block scored elsewhere (on a worker thread, by
 * {@link scoreRunBlocks} over the same run; `isWorkerBlock`): the main thread scores its blocks
 * and takes the worker's results between them, in plan order, as `scoreRun` produces them, so
 * the scores and traces are the same. Only for the built-in scorers (`options.scorers` absent):
 * a worker scores with those.
 */
export async function scoreRunFrom(
  records: RunRecords,
  options: Omit<ScoreRunOptions, 'scorers'>,
  scored: AsyncIterable<readonly BlockResult[]>,
): Promise<RunScores> {
  const run = startScoring(records, options);
  const fromWorker = scored[Symbol.asyncIterator]();
  let index = 0;
  for (const unit of blockUnits(run.context, run.scorers, run.blocks)) {
    if (!isWorkerBlock(index++)) {
      scoreBlock(run.context, unit);
      continue;
    }
    const next = await fromWorker.next();
    if (next.done === true)
      throw new Error(`the scoring worker ended before block ${unit.block.blockId}`);
    for (const result of next.value)
      run.out.add(result.experimentId, result.observations, result.traces);
  }
  return finishScoring(records, run);
}

/**
 * The worker's part of {@link scoreRunFrom}: every other started block (`isWorkerBlock`), in plan
 * order, through the built-in scorers, each block's results handed to `send` as data (awaited
 * before the next block is scored).
 */
export async function scoreRunBlocks(
  records: RunRecords,
  alphas: QualityAlphas | undefined,
  send: (results: readonly BlockResult[]) => Promise<void>,
): Promise<void> {
  let results: BlockResult[] = [];
  const sink: BlockResultSink = {
    add: (experimentId, observations, traces) =>
      results.push({ experimentId, observations, traces }),
  };
  const scorers = checkedScorers(BUILT_IN_SCORERS);
  const outcomes = PlannedOutcomes.fold(records.plan, records.attempts);
  const blocks = blockStatuses(records, outcomes);
  const context: BlockScoring = { records, outcomes, alphas: alphas ?? EQUAL_ALPHAS, out: sink };
  let index = 0;
  for (const unit of blockUnits(context, scorers, blocks)) {
    if (!isWorkerBlock(index++)) continue;
    scoreBlock(context, unit);
    await send(results);
    results = [];
  }
}

/** A run being scored: its scorers, the log's fold, the block statuses and the collector. */
interface Scoring {
  readonly scorers: readonly ReportScorer[];
  readonly outcomes: PlannedOutcomes;
  readonly blocks: BlockRow[];
  readonly out: ScoreCollector;
  readonly context: BlockScoring;
}

function startScoring(records: RunRecords, options: ScoreRunOptions): Scoring {
  const scorers = checkedScorers(options.scorers ?? BUILT_IN_SCORERS);
  // the log folded to line indexes; each outcome is read back from the log when scored
  const outcomes = PlannedOutcomes.fold(records.plan, records.attempts);
  const blocks = blockStatuses(records, outcomes);
  const out = new ScoreCollector(records, scorers, options);
  const context: BlockScoring = { records, outcomes, alphas: options.alphas ?? EQUAL_ALPHAS, out };
  return { scorers, outcomes, blocks, out, context };
}

/** The per-world scorers and the scores, once every block's results are in the collector. */
function finishScoring(records: RunRecords, run: Scoring): RunScores {
  const { scorers, outcomes, blocks, out } = run;
  out.flush();
  const modules = new Map<string, ExperimentScores>();
  for (const scorer of scorers)
    modules.set(scorer.experimentId, {
      scorer,
      get observations() {
        return out.observations(scorer.experimentId);
      },
      traces: out.traces(scorer.experimentId),
      worlds: scoreModule(records, blocks, scorer, outcomes),
      extras: out.extras(scorer.experimentId),
    });
  // a plain object: the observations stay packed in the collector, each read materialises them
  return { blocks: [...blocks].sort((a, b) => compareUtf8(a.blockId, b.blockId)), modules };
}

/** One block to score: its scorer, its systems' requests, and whether it is complete. */
interface BlockUnit {
  readonly scorer: ReportScorer;
  readonly block: PlannedBlock;
  readonly units: readonly SystemRequests[];
  readonly blockComplete: boolean;
}

/**
 * Every started block of the plan, in plan order, with the scorer whose per-block capability
 * claims its kind (a block no scorer claims, such as one of a per-world experiment, is skipped).
 */
function* blockUnits(
  context: BlockScoring,
  scorers: readonly ReportScorer[],
  blocks: readonly BlockRow[],
): Generator<BlockUnit> {
  const { records } = context;
  const complete = new Set(blocks.filter((b) => b.status === 'complete').map((b) => b.blockId));
  const started = new Set(blocks.filter((b) => b.status !== 'not_started').map((b) => b.blockId));
  const byKind = new Map<string, ReportScorer>();
  for (const scorer of scorers)
    for (const kind of scorer.blocks?.blockExperiments ?? []) byKind.set(kind, scorer);
  const planned = plannedBySystemBlock(records);
  const systems = records.manifest.systems.map((s) => s.id);
  for (const block of records.plan.blocks) {
    const scorer = byKind.get(block.experiment);
    if (scorer === undefined || !started.has(block.blockId)) continue;
    const units = systems
      .map((systemId) => ({
        systemId,
        planned: requestsAt(records.plan, planned.get(`${systemId}|${block.blockId}`)),
      }))
      .filter((unit) => unit.planned.length > 0);
    yield { scorer, block, units, blockComplete: complete.has(block.blockId) };
  }
}
