import {
  computeBlockStatuses,
  jsonBlockIds,
  outcomesFromAttemptLog,
  type RequestOutcome,
  runFolderPaths,
  type ScorerRequest,
  usableReply,
} from '@chi/run';
import {
  EQUAL_ALPHAS,
  indexRecords,
  parseProbeReply,
  type RecordIndex,
  scoreMemoryProbes,
  traceMemoryProbes,
} from '@chi/scoring';
import {
  type ChatMessage,
  type ClassifiedAnswer,
  InvalidArgumentError,
  type MemoryProbeTrace,
  type MemoryScore,
  type MemoryWorld,
  type ParsedProbeReply,
  type PlannedBlock,
  type PlannedRequest,
  type QualityAlphas,
} from '@chi/spec';
import { MemoryTaxonomyCounter } from './analysis/memory-taxonomy';
import type { BlockRow, MemoryCondition } from './chart-data';
import type { BehaviorObservation, BehaviorTraceLine } from './experiment-scorers/behavior-scorer';
import type { AnyBlockScorer, ObservationBase, ScoreKey } from './experiment-scorers/block-scorer';
import type { HistoryObservation, HistoryTraceLine } from './experiment-scorers/history-scorer';
import { blockScorerOf } from './experiment-scorers/pilot-scorers';
import { memoryWorldKey, type RunRecords, requestRecordFile } from './run-folder';
import { compareUtf8 } from './sha256-sums';

/** One system's memory score on one world, load and condition. */
export interface MemoryObservation extends ObservationBase {
  readonly kind: 'memory-observation';
  readonly condition: MemoryCondition;
  readonly load: number;
  readonly score: MemoryScore;
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

export type {
  BehaviorObservation,
  BehaviorTraceLine,
  HistoryObservation,
  HistoryTraceLine,
  ObservationBase,
};

/** Everything scored from a run: observations, traces and the status of every block. */
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

/** The notebook a memory probe was answered from, by observation key (see {@link RunScores}). */
export interface ProbeNotebooks {
  /** The text, null for the oracle control, or undefined for a key that was not scored. */
  get(key: string): string | null | undefined;
}

/**
 * Where each observation's notebook is, not its text: the text is read from the run folder's
 * notebooks (which keep only the last file read) when asked for.
 */
class LazyProbeNotebooks implements ProbeNotebooks {
  readonly #sources = new Map<
    string,
    { readonly encodeRequestId: string | undefined } | null | ''
  >();
  readonly #records: RunRecords;

  constructor(records: RunRecords) {
    this.#records = records;
  }

  /** Records the notebook of one observation: its condition and the encode request that wrote it. */
  set(key: string, condition: MemoryCondition, encodeRequestId: string | undefined): void {
    this.#sources.set(
      key,
      condition === 'oracle' ? null : condition === 'blank' ? '' : { encodeRequestId },
    );
  }

  get(key: string): string | null | undefined {
    const source = this.#sources.get(key);
    if (source === undefined || source === null || source === '') return source;
    return notebookText(this.#records, source.encodeRequestId) ?? '';
  }
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
  return rendered === undefined ? null : idsAsked(records, requestId, rendered.messages, blockName);
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

/** The current layout's relative paths (for naming a file the folder does not hold). */
const CURRENT_LAYOUT = runFolderPaths('');

function missingProbe(id: string, reason: string): ClassifiedAnswer {
  return { id, status: 'missing', value: null, source: null, detail: `no usable reply: ${reason}` };
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
  return blockScorerOf(block.experiment)?.worldFile(records, block) ?? block.experiment;
}

function systemIds(records: RunRecords): string[] {
  return records.manifest.systems.map((s) => s.id);
}

function notebookText(records: RunRecords, requestId: string | undefined): string | null {
  if (requestId === undefined) return null;
  const path = records.notebookOfRequest.get(requestId);
  return path === undefined ? null : (records.notebooks.get(path)?.text ?? null);
}

/** What scoring one block reads: the run, every request's outcome, and where results go. */
interface BlockScoring {
  readonly records: RunRecords;
  readonly outcomes: ReadonlyMap<string, RequestOutcome>;
  readonly alphas: QualityAlphas;
  readonly out: ScoreCollector;
  /** One validated record index per memory world, shared by every system and condition. */
  readonly indexOf: (world: MemoryWorld) => RecordIndex;
}

/** One system's requests in one block, with the block's place in the run. */
interface SystemBlock {
  readonly block: PlannedBlock;
  readonly systemId: string;
  readonly planned: readonly PlannedRequest[];
  readonly blockComplete: boolean;
}

/** Collects observations and notebooks, and hands traces to the sink (or a list). */
class ScoreCollector {
  readonly memory: MemoryObservation[] = [];
  readonly history: HistoryObservation[] = [];
  readonly behavior: BehaviorObservation[] = [];
  readonly memoryTraces: MemoryTraceLine[] = [];
  readonly historyTraces: HistoryTraceLine[] = [];
  readonly behaviorTraces: BehaviorTraceLine[] = [];
  readonly notebooks: LazyProbeNotebooks;
  readonly taxonomy = new MemoryTaxonomyCounter();
  readonly traces: TraceSink;

  constructor(records: RunRecords, sink: TraceSink | undefined) {
    this.notebooks = new LazyProbeNotebooks(records);
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

  /** A block scorer's observation into its part of the scores, its traces to the sink. */
  add(key: ScoreKey, observation: ObservationBase, traces: readonly unknown[]): void {
    (this[key] as ObservationBase[]).push(observation);
    const sink = this.traces[key] as (line: unknown) => void;
    for (const line of traces) sink(line);
  }
}

function observationBase(unit: SystemBlock, unusable: ObservationBase['unusableRequests']) {
  return {
    systemId: unit.systemId,
    blockId: unit.block.blockId,
    worldSeed: unit.block.worldSeed,
    blockComplete: unit.blockComplete,
    unusableRequests: unusable,
  };
}

function isMemoryProbe(request: PlannedRequest): boolean {
  return request.task === 'memory_probe' || request.task === 'memory_probe_oracle';
}

/** The probe replies of one condition merged into one answer per answer-key entry. */
function mergedProbeReplies(
  context: BlockScoring,
  world: MemoryWorld,
  probes: readonly PlannedRequest[],
): { merged: ParsedProbeReply; unusable: { requestId: string; reason: string }[] } {
  const unusable: { requestId: string; reason: string }[] = [];
  const answers = new Map<string, ClassifiedAnswer>();
  let foundAnswerSet = true;
  let unrequestedCount = 0;
  const notes: string[] = [];
  for (const request of probes) {
    const usable = usableText(outcomeOf(context.outcomes, request.requestId));
    const ids = requestedIds(context.records, request.requestId, 'QUESTIONS');
    if ('reason' in usable || ids === null) {
      const reason = 'reason' in usable ? usable.reason : 'rendered request has no QUESTIONS block';
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
  const reasonFor = unusable.map((u) => `${u.requestId} ${u.reason}`).join('; ') || 'not asked';
  const merged: ParsedProbeReply = {
    answers: world.answerKey.map(
      (entry) => answers.get(entry.id) ?? missingProbe(entry.id, reasonFor),
    ),
    foundAnswerSet,
    unrequestedCount,
    notes,
  };
  return { merged, unusable };
}

function scoreMemoryCondition(
  context: BlockScoring,
  unit: SystemBlock,
  world: MemoryWorld,
  condition: MemoryCondition,
): void {
  const { out } = context;
  const probes = unit.planned
    .filter((r) => isMemoryProbe(r) && (r.condition ?? 'notebook') === condition)
    .sort((a, b) => (a.batch ?? 0) - (b.batch ?? 0));
  const { merged, unusable } = mergedProbeReplies(context, world, probes);
  out.memory.push({
    kind: 'memory-observation',
    ...observationBase(unit, unusable),
    condition,
    load: world.load,
    score: scoreMemoryProbes(world.answerKey, merged, context.alphas),
  });
  const traces = traceMemoryProbes(world.records, world.answerKey, merged, context.indexOf(world));
  for (const trace of traces) {
    out.traces.memory({
      systemId: unit.systemId,
      condition,
      load: world.load,
      worldSeed: unit.block.worldSeed,
      blockComplete: unit.blockComplete,
      trace,
    });
  }
  const encode = unit.planned.find((r) => r.task === 'memory_encode');
  out.notebooks.set(
    `${unit.systemId}|${unit.block.blockId}|${condition}`,
    condition,
    encode?.requestId,
  );
}

function scoreMemoryBlock(context: BlockScoring, unit: SystemBlock): void {
  const { block } = unit;
  const world = context.records.memoryWorlds.get(memoryWorldKey(block.worldSeed, block.load ?? 0));
  if (world === undefined)
    throw new Error(`block ${block.blockId}: no memory world w${block.worldSeed}-n${block.load}`);
  const conditions = [
    ...new Set(unit.planned.filter(isMemoryProbe).map((r) => r.condition ?? 'notebook')),
  ];
  for (const condition of conditions) scoreMemoryCondition(context, unit, world, condition);
}

/** One system's requests with their messages and usable replies, as a scorer reads them. */
function scorerRequests(context: BlockScoring, unit: SystemBlock): ScorerRequest[] {
  return unit.planned.map((request) => {
    const reply = usableReply(outcomeOf(context.outcomes, request.requestId));
    return {
      request,
      messages: context.records.requests.get(request.requestId)?.messages ?? null,
      reply: reply.kind === 'reply' ? reply.text : null,
      unusableReason: reply.kind === 'reply' ? null : reply.reason,
    };
  });
}

/** Scores one block through its experiment's block scorer; its part of the scores is its key. */
function scoreWithScorer(context: BlockScoring, unit: SystemBlock, scorer: AnyBlockScorer): void {
  const { records } = context;
  const result = scorer.scoreBlock({
    world: scorer.world(records, unit.block),
    block: unit.block,
    systemId: unit.systemId,
    blockComplete: unit.blockComplete,
    requests: scorerRequests(context, unit),
    askedIds: (request, blockName) =>
      request.messages === null
        ? null
        : idsAsked(records, request.request.requestId, request.messages, blockName),
  });
  context.out.add(scorer.scoreKey, result.observation, result.traces);
}

/** Scores one system's requests in one block; an error names the world file it was scored against. */
function scoreSystemBlock(context: BlockScoring, unit: SystemBlock): void {
  const { block } = unit;
  try {
    if (block.experiment === 'memory' || block.experiment === 'controls')
      scoreMemoryBlock(context, unit);
    else {
      // The pilot's ported experiments; an added one (`x-...`) is scored by its own scorer.
      const scorer = blockScorerOf(block.experiment);
      if (scorer !== undefined) scoreWithScorer(context, unit, scorer);
    }
  } catch (error) {
    if (InvalidArgumentError.isInstance(error) && /^(worlds|requests|payloads)\//.test(error.field))
      throw error;
    throw new InvalidArgumentError(
      worldFile(context.records, block),
      `cannot score block ${block.blockId} for system ${unit.systemId}: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/** The planned requests of each system in each block (one pass over the plan, not one per block). */
function plannedBySystemBlock(records: RunRecords): Map<string, PlannedRequest[]> {
  const grouped = new Map<string, PlannedRequest[]>();
  for (const request of records.plan.requests) {
    const key = `${request.systemId}|${request.blockId}`;
    const list = grouped.get(key);
    if (list === undefined) grouped.set(key, [request]);
    else list.push(request);
  }
  return grouped;
}

function memoizedRecordIndex(): (world: MemoryWorld) => RecordIndex {
  let last: { world: MemoryWorld; index: RecordIndex } | null = null;
  return (world) => {
    if (last === null || last.world !== world) last = { world, index: indexRecords(world.records) };
    return last.index;
  };
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
  const outcomes = requestOutcomes(records);
  const blocks = blockStatuses(records, outcomes);
  const complete = new Set(blocks.filter((b) => b.status === 'complete').map((b) => b.blockId));
  const started = new Set(blocks.filter((b) => b.status !== 'not_started').map((b) => b.blockId));
  const out = new ScoreCollector(records, options.traces);
  const context: BlockScoring = {
    records,
    outcomes,
    alphas: options.alphas ?? EQUAL_ALPHAS,
    out,
    indexOf: memoizedRecordIndex(),
  };
  const planned = plannedBySystemBlock(records);
  for (const block of records.plan.blocks) {
    if (!started.has(block.blockId)) continue;
    for (const systemId of systemIds(records)) {
      const requests = planned.get(`${systemId}|${block.blockId}`) ?? [];
      if (requests.length === 0) continue;
      const blockComplete = complete.has(block.blockId);
      scoreSystemBlock(context, { block, systemId, planned: requests, blockComplete });
    }
  }
  return {
    memory: out.memory,
    history: out.history,
    behavior: out.behavior,
    memoryTraces: out.memoryTraces,
    historyTraces: out.historyTraces,
    behaviorTraces: out.behaviorTraces,
    blocks: [...blocks].sort((a, b) => compareUtf8(a.blockId, b.blockId)),
    probeNotebooks: out.notebooks,
    memoryTaxonomy: out.taxonomy,
  };
}
