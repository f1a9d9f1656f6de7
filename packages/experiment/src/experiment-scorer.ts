import type {
  ChatMessage,
  ChatResult,
  PlannedBlock,
  PlannedRequest,
  QualityAlphas,
  RunManifest,
} from '@chi/spec';

/** One registered request of an experiment in one world, as its scorer sees it. */
export interface ScorerRequest {
  readonly request: PlannedRequest;
  /** The messages exactly as sent (read from the run folder or release), or null when never rendered. */
  readonly messages: readonly ChatMessage[] | null;
  /** The usable reply text (`usableReply`), or null; then `unusableReason` says why. */
  readonly reply: string | null;
  readonly unusableReason: string | null;
  /**
   * The result the attempt log records for the request (its timing, charge and raw text, even
   * when the reply is not usable), or null when it never resolved (abandoned, blocked, not sent).
   * For a scorer whose item reports more than the reply: the divergence protocol's CHIS entries
   * carry when a probe finished and what its trajectory cost, and its notebook fold follows the
   * runner's rule, which keeps a model failure's text. Absent only where a caller built the
   * request itself without it (every request the report builds carries it).
   */
  readonly result?: ChatResult | null;
}

/** What `scoreWorld` of an {@link ExperimentScorer} receives: one system's requests on one world. */
export interface ScorerWorldInput<Params> {
  /** The experiment's parameters as frozen in the manifest. */
  readonly params: Params;
  readonly worldSeed: number;
  readonly systemId: string;
  /** This system's requests of the experiment on this world, in plan order. */
  readonly requests: readonly ScorerRequest[];
}

/** A cell of a scorer's trace line. */
export type ScorerCell = number | string | boolean | null;

/** What `scoreWorld` of an {@link ExperimentScorer} returns for one system on one world. */
export interface ScorerWorldResult {
  /** One value per declared column (null where undefined on this world). */
  readonly values: Readonly<Record<string, number | null>>;
  /** One line per scored item (step, choice, question), published under `traces/`. */
  readonly traces: readonly Readonly<Record<string, ScorerCell>>[];
}

/** A world mean the release reports per system, with a world-cluster bootstrap interval. */
export interface ScorerEstimand {
  /** The column whose world values it averages. */
  readonly column: string;
  /** A short human label (report table). */
  readonly label: string;
}

/**
 * What the report that hosts a scorer gives its optional capabilities (the {@link ExperimentHost}
 * pattern of the experiment itself): the run's records a {@link ScorerBlocks} capability looks its
 * world up in, and the type of its {@link ExperimentScorer.analysis} hook. The SPI names no host:
 * `@chi/report` binds this to its `RunRecords` and `ExperimentAnalysis` (`ReportScorerHost`); a
 * scorer written outside that uses neither capability leaves it at this default.
 */
export interface ScorerHost {
  readonly records: unknown;
  readonly analysis: unknown;
}

/** What {@link ScorerBlocks.scoreBlock} receives: one system's requests in one block. */
export interface ScorerBlockInput<World> {
  /** The world the block is scored against ({@link ScorerBlocks.world}), read once per block. */
  readonly world: World;
  readonly block: PlannedBlock;
  readonly systemId: string;
  /** Comparisons use complete blocks only; an incomplete block is scored and flagged. */
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
 * What {@link ScorerBlocks.scoreBlock} returns: the block's observations (one, or one per
 * condition the block probes) and their trace lines, in the order they are published.
 */
export interface ScorerBlockResult<Observation, Trace> {
  readonly observations: readonly Observation[];
  readonly traces: readonly Trace[];
}

/**
 * The per-block capability of an {@link ExperimentScorer}: one typed observation per system and
 * block (or per condition), scored against a world the run folder holds (not regenerated), with
 * typed trace lines streamed to the host's trace sink as they are produced. The pilot's memory,
 * history and behavior scorers use it, because their release files were fixed before the
 * per-world form existed.
 *
 * @typeParam Records - the host's run records ({@link ScorerHost.records}).
 */
export interface ScorerBlocks<
  Records = unknown,
  World = unknown,
  Observation = unknown,
  Trace = unknown,
> {
  /** The `experiment` of the blocks it scores (memory also scores its `controls` blocks). */
  readonly blockExperiments: readonly string[];
  /** The world a block is scored against (read once per block); throws when the run holds none. */
  world(records: Records, block: PlannedBlock): World;
  /** The run-folder file a block is scored against, named in a scoring error. */
  worldFile(records: Records, block: PlannedBlock): string;
  /** Scores one system's requests in one block. Pure; never throws on model output. */
  scoreBlock(input: ScorerBlockInput<World>): ScorerBlockResult<Observation, Trace>;
  /** The release file (`traces/<system>/...jsonl`) a trace line is published in. */
  traceFile(line: Trace): string;
}

/**
 * The scorer of an experiment: the one interface the report scores every experiment through,
 * the pilot's memory, history and behavior as much as an opt-in or added one. It runs without
 * the runner (`@chi/report` never imports `@chi/pilot`) and is pure, one world or block at a
 * time, so scoring streams: the report folds the attempt log once and feeds every scorer of its
 * registry in the same pass.
 *
 * Besides its declarations a scorer has one or more capabilities, each optional:
 * - **per world** (`columns`, `estimands`, `scoreWorld`): numbers per system and world. The report
 *   turns them into world means over complete blocks with percentile intervals from the release's
 *   one world-cluster bootstrap (`@chi/stats`: the same seed and clusters as every other
 *   estimate, so pairing across systems and estimands holds), publishes its tables (`scores/`,
 *   `traces/`, `chart-data/`) and a report section, and `verifyRelease` recomputes all of them.
 *   Features computed within a world (a shift relative to a control condition of the same world)
 *   stay paired: the bootstrap resamples whole worlds.
 * - **per block** (`blocks`, {@link ScorerBlocks}): typed observations against the run's world
 *   files, traces streamed to the host's sink.
 * - **analysis** (`analysis`): a run-level hook of the host's type ({@link ScorerHost.analysis}:
 *   the report's registers estimands on the run's one bootstrap and returns its part of the chart
 *   data).
 *
 * @typeParam Params - its experiment's parameters as frozen in the manifest.
 * @typeParam Host - what the hosting report gives its capabilities ({@link ScorerHost}).
 */
export interface ExperimentScorer<Params = unknown, Host extends ScorerHost = ScorerHost> {
  /** Version marker of this interface. */
  readonly specificationVersion: 'chi-scorer-v1';
  /** The experiment it scores (the `experiment` its planned requests and blocks carry). */
  readonly experimentId: string;
  /** The title of its report section. */
  readonly title: string;
  /** Its parameters in a frozen manifest, or null when the run does not include it. */
  parametersOf(manifest: RunManifest): Params | null;
  /** Paragraphs of its report section: what the numbers are, and what they are not. */
  readonly notes: readonly string[];
  /** Per world: the columns of `values`, in table order. */
  readonly columns?: readonly string[];
  /** Per world: the world means the release reports with intervals. */
  readonly estimands?: readonly ScorerEstimand[];
  /**
   * Per world: scores one system on one world from its requests and replies. Pure; must not
   * throw on model output.
   */
  scoreWorld?(input: ScorerWorldInput<Params>): ScorerWorldResult;
  /** Per block: typed observations against the run's world files ({@link ScorerBlocks}). */
  readonly blocks?: ScorerBlocks<Host['records']>;
  /** Run-level analysis over the run's one bootstrap, of the host's type. */
  readonly analysis?: Host['analysis'];
}

/**
 * A scorer with the per-world capability: `columns`, `estimands` and `scoreWorld` all present
 * ({@link scoresWorlds}).
 */
export type WorldScorer<Params = unknown, Host extends ScorerHost = ScorerHost> = ExperimentScorer<
  Params,
  Host
> &
  Required<Pick<ExperimentScorer<Params, Host>, 'columns' | 'estimands' | 'scoreWorld'>>;

/** True when a scorer has the per-world capability (`columns`, `estimands` and `scoreWorld`). */
export function scoresWorlds<Params, Host extends ScorerHost>(
  scorer: ExperimentScorer<Params, Host>,
): scorer is WorldScorer<Params, Host> {
  return (
    typeof scorer.scoreWorld === 'function' &&
    scorer.columns !== undefined &&
    scorer.estimands !== undefined
  );
}

/**
 * An experiment scorer of any parameter type and host, as a list holds it (methods are
 * bivariant, so an `ExperimentScorer<P, H>` is one).
 */
export type AnyExperimentScorer = ExperimentScorer<unknown>;

/** Defines an experiment scorer, checked against {@link ExperimentScorer} with its own parameters. */
export function defineExperimentScorer<Params, Host extends ScorerHost = ScorerHost>(
  scorer: ExperimentScorer<Params, Host>,
): ExperimentScorer<Params, Host> {
  return scorer;
}
