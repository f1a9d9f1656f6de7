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
import type { MemoryTaxonomyCounter } from './memory-taxonomy';

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
 * (empty without that capability) and its per-world scores (null without that capability or when
 * the run does not include the experiment).
 */
export interface ExperimentScores {
  readonly scorer: AnyExperimentScorer;
  /** Per-block observations, packed: each read materialises a new array (read it once). */
  readonly observations: readonly ObservationBase[];
  /** Per-block trace lines (empty when `scoreRun` was given a trace sink). */
  readonly traces: readonly TraceLineBase[];
  /** Per-world scores (`scoreWorld`). */
  readonly worlds: ModuleScores | null;
}

/**
 * Everything scored from a run: every scorer's scores by experiment ID (`modules`, in scorer
 * order), the status of every block, and, read from there under the names the pilot's fixed
 * release files and analyses use, the memory, history and behavior observations and traces.
 *
 * The scores `scoreRun` of `@chi/report` returns hold the observations packed: each read of `memory`,
 * `history`, `behavior` or a module's `observations` materialises a new array of new objects
 * (equal every time), so read a list once into a variable and drop it when done rather than
 * reading it in a loop.
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
  /** Every scorer's scores by experiment ID, in the order of the scorers `scoreRun` was given. */
  readonly modules: ReadonlyMap<string, ExperimentScores>;
}
