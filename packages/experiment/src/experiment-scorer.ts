import type { ChatMessage, PlannedRequest, RunManifest } from '@chi/spec';

/** One registered request of an experiment in one world, as its scorer sees it. */
export interface ScorerRequest {
  readonly request: PlannedRequest;
  /** The messages exactly as sent (read from the run folder or release), or null when never rendered. */
  readonly messages: readonly ChatMessage[] | null;
  /** The usable reply text (`usableReply`), or null; then `unusableReason` says why. */
  readonly reply: string | null;
  readonly unusableReason: string | null;
}

/** What {@link ExperimentScorer.scoreWorld} receives: one system's requests on one world. */
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

/** What {@link ExperimentScorer.scoreWorld} returns for one system on one world. */
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
 * The scoring and analysis part of an experiment module, in the form the report can run without
 * the runner (`@chi/report` never imports `@chi/pilot`): pure, one world at a time, so scoring
 * streams. The report turns its per-world values into world means over complete blocks with
 * percentile intervals from the release's one world-cluster bootstrap (`@chi/stats`: the same
 * seed and clusters as every other estimate, so pairing across systems and estimands holds),
 * publishes its tables (`scores/`, `traces/`, `chart-data/`) and a report section, and
 * `verifyRelease` recomputes all of them from the raw records.
 *
 * Features computed within a world (a shift relative to a control condition of the same world)
 * stay paired: the bootstrap resamples whole worlds.
 *
 * @typeParam Params - its experiment's parameters as frozen in the manifest.
 */
export interface ExperimentScorer<Params = unknown> {
  /** Version marker of this interface. */
  readonly specificationVersion: 'chi-scorer-v1';
  /** The experiment it scores (the `experiment` its planned requests and blocks carry). */
  readonly experimentId: string;
  /** The title of its report section. */
  readonly title: string;
  /** Its parameters in a frozen manifest, or null when the run does not include it. */
  parametersOf(manifest: RunManifest): Params | null;
  /** The columns of `values`, in table order. */
  readonly columns: readonly string[];
  /** The world means the release reports with intervals. */
  readonly estimands: readonly ScorerEstimand[];
  /** Scores one system on one world from its requests and replies. Pure; must not throw on model output. */
  scoreWorld(input: ScorerWorldInput<Params>): ScorerWorldResult;
  /** Paragraphs of its report section: what the numbers are, and what they are not. */
  readonly notes: readonly string[];
}

/**
 * An experiment scorer of any parameter type, as a list holds it (methods are bivariant, so an
 * `ExperimentScorer<P>` is one).
 */
export type AnyExperimentScorer = ExperimentScorer<unknown>;

/** Defines an experiment scorer, checked against {@link ExperimentScorer} with its own parameters. */
export function defineExperimentScorer<Params>(
  scorer: ExperimentScorer<Params>,
): ExperimentScorer<Params> {
  return scorer;
}
