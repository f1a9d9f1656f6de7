import type { AnyExperimentScorer, ScorerCell, WorldScorer } from '@chi/experiment';
import type {
  BehaviorItemTrace,
  BehaviorScore,
  Decision,
  HistoryId,
  HistoryItemTrace,
  HistoryScore,
  MemoryProbeTrace,
  MemoryScore,
} from '@chi/spec';
import type { BlockRow, MemoryCondition } from './chart-data';

// The scored data every analysis reads: what `scoreRun` of `@chi/report` returns, as plain types,
// so the analysis depends on the scores and not on how a run folder is read.

/** Where an observation comes from: one system in one matched block. */
export interface ObservationBase {
  readonly systemId: string;
  readonly blockId: string;
  readonly worldSeed: number;
  /** Comparisons use complete blocks only; incomplete observations are kept and published. */
  readonly blockComplete: boolean;
  /** Requests of this system in the block that did not give a usable reply, with the reason. */
  readonly unusableRequests: readonly { readonly requestId: string; readonly reason: string }[];
}

/** Where a trace line comes from: what a trace sink routes it by. */
export interface TraceLineBase {
  readonly systemId: string;
  readonly worldSeed: number;
  readonly blockComplete: boolean;
}

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

/** The notebook a memory probe was answered from, by observation key (see `RunScores`). */
export interface ProbeNotebooks {
  /** The text, null for the oracle control, or undefined for a key that was not scored. */
  get(key: string): string | null | undefined;
}

/** One system's history scores on one world (histories A, B, A2 x checkpoints 0-4). */
export interface HistoryObservation extends ObservationBase {
  readonly kind: 'history-observation';
  /** Decisions per history and checkpoint, in environment order. */
  readonly decisions: Readonly<Record<HistoryId, readonly (readonly Decision[])[]>>;
  readonly score: HistoryScore;
}

/** A history decision trace with where it came from. */
export interface HistoryTraceLine {
  readonly systemId: string;
  readonly worldSeed: number;
  readonly blockComplete: boolean;
  readonly trace: HistoryItemTrace;
}

/** One system's behavioral scores on one world. */
export interface BehaviorObservation extends ObservationBase {
  readonly kind: 'behavior-observation';
  readonly score: BehaviorScore;
}

/** A behavioral item trace with where it came from. */
export interface BehaviorTraceLine {
  readonly systemId: string;
  readonly worldSeed: number;
  readonly blockComplete: boolean;
  readonly trace: BehaviorItemTrace;
}

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

/** What `scoreModule` of `@chi/report` returns: the observations and trace lines of one experiment. */
export interface ModuleScores {
  readonly scorer: WorldScorer;
  readonly observations: readonly ModuleObservation[];
  /** Trace lines by system ID, each with its world seed. */
  readonly traces: ReadonlyMap<string, readonly Readonly<Record<string, ScorerCell>>[]>;
}

/**
 * What one scorer of a run gave, in the one scoring pass: its per-block observations and traces
 * (empty without that capability), its per-world scores (null without that capability or when
 * the run does not include the experiment), and what else its scores carry (`extras`).
 */
export interface ExperimentScores {
  readonly scorer: AnyExperimentScorer;
  /** Per-block observations, packed: each read materialises a new array (read it once). */
  readonly observations: readonly ObservationBase[];
  /** Per-block trace lines (empty when `scoreRun` was given a trace sink). */
  readonly traces: readonly TraceLineBase[];
  /** Per-world scores (`scoreWorld`). */
  readonly worlds: ModuleScores | null;
  /**
   * What the experiment's scores carry beyond its observations and traces, by name: a fold of
   * its traces counted as they were produced, or a reader of its raw records that reads only when
   * asked (memory's probe notebooks and failure taxonomy, read with `memoryExtrasOf`).
   * Empty for most experiments. Read through the experiment's own accessor, not by name.
   */
  readonly extras: Readonly<Record<string, unknown>>;
}

/**
 * Everything scored from a run, keyed by experiment: every scorer's scores by experiment ID
 * (`modules`, in scorer order) and the status of every block. Nothing here names an experiment:
 * an experiment's observations and traces are read with {@link observationsOf} and
 * {@link traceLinesOf}, typed by the experiment's own guard.
 *
 * The scores `scoreRun` of `@chi/report` returns hold the observations packed: each read of a
 * module's `observations` (and so each {@link observationsOf}) materialises a new array of new
 * objects (equal every time), so read a list once into a variable and drop it when done rather
 * than reading it in a loop.
 *
 * @example
 * ```ts
 * import { isMemoryObservation, observationsOf } from '@chi/analysis';
 * const memory = observationsOf(scores, 'memory', isMemoryObservation); // MemoryObservation[]
 * ```
 */
export interface RunScores {
  readonly blocks: readonly BlockRow[];
  /** Every scorer's scores by experiment ID, in the order of the scorers `scoreRun` was given. */
  readonly modules: ReadonlyMap<string, ExperimentScores>;
}

/** Every element of `list` through `guard`, or an error naming the experiment and what was read. */
function checked<B, T extends B>(
  list: readonly B[],
  guard: (value: B) => value is T,
  experimentId: string,
  what: string,
): readonly T[] {
  for (const value of list)
    if (!guard(value))
      throw new TypeError(
        `the ${what} of experiment ${experimentId} are not of the type asked for (${guard.name || 'guard'})`,
      );
  return list as readonly T[];
}

/**
 * An experiment's per-block observations, typed by its guard (every observation is checked; a
 * mismatch is a `TypeError` naming the experiment). `[]` for an experiment the scores do not
 * hold or that has no per-block scorer. On the packed scores of `scoreRun` each call
 * materialises a new array: read it once.
 *
 * @example
 * ```ts
 * const history = observationsOf(scores, 'history', isHistoryObservation);
 * const mine = observationsOf(scores, 'x-echo', (o): o is EchoObservation => o.kind === 'x-echo');
 * ```
 */
export function observationsOf<T extends ObservationBase>(
  scores: RunScores,
  experimentId: string,
  guard: (observation: ObservationBase) => observation is T,
): readonly T[] {
  const observations = scores.modules.get(experimentId)?.observations ?? [];
  return checked(observations, guard, experimentId, 'observations');
}

/**
 * An experiment's per-block trace lines, typed by its guard (every line is checked). `[]` for an
 * experiment the scores do not hold, and when `scoreRun` was given a trace sink (the lines went
 * there as they were produced).
 */
export function traceLinesOf<T extends TraceLineBase>(
  scores: RunScores,
  experimentId: string,
  guard: (line: TraceLineBase) => line is T,
): readonly T[] {
  const traces = scores.modules.get(experimentId)?.traces ?? [];
  return checked(traces, guard, experimentId, 'trace lines');
}

/** Whether an observation is a memory observation (its `kind`). */
export function isMemoryObservation(
  observation: ObservationBase,
): observation is MemoryObservation {
  return (observation as { kind?: unknown }).kind === 'memory-observation';
}

/** Whether an observation is a history observation (its `kind`). */
export function isHistoryObservation(
  observation: ObservationBase,
): observation is HistoryObservation {
  return (observation as { kind?: unknown }).kind === 'history-observation';
}

/** Whether an observation is a behavioral observation (its `kind`). */
export function isBehaviorObservation(
  observation: ObservationBase,
): observation is BehaviorObservation {
  return (observation as { kind?: unknown }).kind === 'behavior-observation';
}

/** The trace a line carries, as a record to test members of. */
function traceOf(line: TraceLineBase): Readonly<Record<string, unknown>> {
  const trace = (line as { trace?: unknown }).trace;
  return typeof trace === 'object' && trace !== null ? (trace as Record<string, unknown>) : {};
}

// Trace lines are published as they are (traces/*.jsonl) and carry no kind, so these guards test
// the members that tell the three apart.

/** Whether a trace line is a memory probe's (a condition and load; the trace names a probe). */
export function isMemoryTraceLine(line: TraceLineBase): line is MemoryTraceLine {
  return 'condition' in line && 'load' in line && 'probeId' in traceOf(line);
}

/** Whether a trace line is a history decision's (the trace names a history and checkpoint). */
export function isHistoryTraceLine(line: TraceLineBase): line is HistoryTraceLine {
  const trace = traceOf(line);
  return 'history' in trace && 'checkpoint' in trace && 'environmentIndex' in trace;
}

/** Whether a trace line is a behavioral item's (the trace names an item and axis). */
export function isBehaviorTraceLine(line: TraceLineBase): line is BehaviorTraceLine {
  const trace = traceOf(line);
  return 'itemId' in trace && 'axis' in trace;
}
