import type { ScorerRequest } from '@chi/experiment';
import type { PlannedBlock, QualityAlphas } from '@chi/spec';
import type { ExperimentAnalysis } from '../analysis/analysis-context';
import type { ChartData } from '../chart-data';
import type { RunRecords } from '../run-folder';

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

/** What {@link BlockScorer.scoreBlock} receives: one system's requests in one block. */
export interface BlockScorerInput<World> {
  /** The world the block is scored against, read from the run folder (or release). */
  readonly world: World;
  readonly block: PlannedBlock;
  readonly systemId: string;
  readonly blockComplete: boolean;
  /** This system's requests in the block, in plan order, with messages and usable replies. */
  readonly requests: readonly ScorerRequest[];
  /** Q_M factor weights of the release (the protocol's 1/6 each by default). */
  readonly alphas: QualityAlphas;
  /**
   * The IDs a request asked about, read from the named JSON block of its rendered user messages;
   * null when it was never rendered or has no such block. A rendered request whose block cannot
   * be read is a damaged run folder: the error names the request file.
   */
  askedIds(request: ScorerRequest, blockName: string): string[] | null;
}

/**
 * What {@link BlockScorer.scoreBlock} returns: the block's observations (one, or one per
 * condition the block probes) and their traces.
 */
export interface BlockScorerResult<Observation, Trace> {
  readonly observations: readonly Observation[];
  /** Trace lines, in the order they are published. */
  readonly traces: readonly Trace[];
}

/**
 * The key of a pilot experiment's part of `RunScores`: its observations are `scores[key]`, its
 * trace lines `scores[`${key}Traces`]`, and a `TraceSink` receives them by `sink[key]`.
 */
export type ScoreKey = 'memory' | 'history' | 'behavior';

/**
 * The scorer of one of the pilot's experiments, the form of `ExperimentScorer` (`chi-scorer-v1`)
 * the pilot's release needs: it scores one system's requests in one block against the world file
 * the run folder holds (an added experiment regenerates its world from the seed instead), keeps
 * one small observation per system and block, and its analysis registers estimands on the
 * release's one shared world-cluster bootstrap and returns its part of the chart data.
 * `scoreRun` and `analyzeRun` loop over {@link PILOT_BLOCK_SCORERS}; neither names the experiment.
 */
export interface BlockScorer<World, Observation extends ObservationBase, Trace> {
  /** The experiment it scores. */
  readonly experimentId: string;
  /** The `experiment` of the blocks it scores (memory also scores its `controls` blocks). */
  readonly blockExperiments: readonly string[];
  /** Its part of `RunScores` (observations, traces, trace sink). */
  readonly scoreKey: ScoreKey;
  /**
   * The world a block is scored against (read once per block, for every system); throws when the
   * run folder holds none.
   */
  world(records: RunRecords, block: PlannedBlock): World;
  /** The world file a block is scored against, named in scoring errors. */
  worldFile(records: RunRecords, block: PlannedBlock): string;
  /** Scores one system's requests in one block. Pure; never throws on model output. */
  scoreBlock(input: BlockScorerInput<World>): BlockScorerResult<Observation, Trace>;
  /** Its part of the analysis, around the run's one bootstrap (estimands in a fixed order). */
  readonly analysis: ExperimentAnalysis<unknown, Partial<ChartData>>;
}

/**
 * A block scorer of any world, observation and trace type, as the registry holds it (methods are
 * bivariant, so a `BlockScorer<W, O, T>` is one; each is checked where it is defined).
 */
export type AnyBlockScorer = BlockScorer<unknown, ObservationBase, unknown>;

/** Defines a block scorer, checked against {@link BlockScorer} with its own types. */
export function defineBlockScorer<World, Observation extends ObservationBase, Trace>(
  scorer: BlockScorer<World, Observation, Trace>,
): BlockScorer<World, Observation, Trace> {
  return scorer;
}

/**
 * The world a block is scored against, looked up in the run's files by `key` (a world seed, or
 * memory's seed and load), or an error naming the block and the missing `what` (`history world
 * w3`). The one lookup of every block scorer's {@link BlockScorer.world}.
 */
export function blockWorld<Key, World>(
  files: { get(key: Key): World | undefined },
  key: Key,
  block: Pick<PlannedBlock, 'blockId'>,
  what: string,
): World {
  const world = files.get(key);
  if (world === undefined) throw new Error(`block ${block.blockId}: no ${what}`);
  return world;
}
