import type { ChartPartMap, RunChartData, RunScores } from '@chi/analysis';
import { BootstrapRegistry, type ChartData } from '@chi/analysis';
import {
  type AnalysisContext,
  type BootstrapSettings,
  type BytesStoredRow,
  type ComparisonSettings,
  type Comparisons,
  type CorpusRow,
  compareUtf8,
  comparisonResults,
  defineComparisons,
  type ExperimentAnalysis,
  estimandWorldSets,
  type FailureCount,
  HeldScores,
  HeldWorlds,
  isScriptedOrSynthetic,
  plannedWorlds,
  type ResourceRow,
} from '@chi/analysis/internal';
import { EQUAL_ALPHAS, NO_CALIBRATION_REASON } from '@chi/scoring';
import {
  type AttemptRecord,
  type ChatResult,
  InvalidArgumentError,
  type QualityAlphas,
} from '@chi/spec';
import { asReportScorer } from '../experiment-scorers/scorer-host';
import { bytesStoredFold } from '../record-rows/bytes-stored';
import { transcriptReplayRows } from '../record-rows/transcript-replay';
import { wordingAgreementRows } from '../record-rows/wording-agreement';
import { plannedRequestOf } from '../run-folder/plan-view';
import type { RunRecords } from '../run-folder/run-folder';
import { corpusPerLoadFold } from './corpus-per-load';

/** Options of {@link analyzeRun}; every default is recorded in the release's analysis parameters. */
export interface AnalyzeRunOptions {
  readonly alphas?: QualityAlphas;
  /** Cells with fewer complete worlds are captioned "exploratory". Default 30. */
  readonly exploratoryBelowWorlds?: number;
  /**
   * Compare every system with this one only (`--compare-to`); default: every pair of systems.
   * Must name a system of the manifest.
   */
  readonly compareTo?: string | null;
}

/**
 * The analyses of the scorers the run was scored with, in scorer order: the order their
 * estimands join the one bootstrap (the order of the replicates' statistic, so it never changes;
 * `BUILT_IN_SCORERS`: memory, history, behavior).
 */
function analysesOf(scores: RunScores): ExperimentAnalysis<unknown>[] {
  return [...scores.modules.values()].flatMap(({ scorer }) => {
    const analysis = asReportScorer(scorer).analysis;
    return analysis === undefined ? [] : [analysis];
  });
}

/** The block observations of every scorer with an analysis (the worlds they cover). */
function analysedObservations(scores: RunScores): { worldSeed: number }[] {
  return [...scores.modules.values()].flatMap(({ scorer, observations }) =>
    asReportScorer(scorer).analysis === undefined ? [] : observations,
  );
}

/**
 * Runs every experiment's analysis around one bootstrap and keys their parts of the chart data by
 * experiment ID.
 * The observations read to register the estimands are released before the bootstrap (it reads
 * only the packed world columns) and read again for the results.
 */
function experimentParts(
  context: AnalysisContext,
  release: () => void,
  registry: BootstrapRegistry,
  settings: BootstrapSettings & { readonly comparisons: ComparisonSettings },
): { readonly experiments: ChartPartMap; readonly comparisons: Comparisons } {
  const registered = analysesOf(context.scores).map((analysis) => ({
    analysis,
    estimands: analysis.estimands(context, registry),
  }));
  // the paired comparisons join the same bootstrap last, so every other estimand keeps its place
  const compared = defineComparisons(context, registry, settings.comparisons);
  release();
  const results = registry.run(settings);
  const experiments: Record<string, object> = {};
  for (const { analysis, estimands } of registered)
    experiments[analysis.id] = analysis.results(context, estimands, results);
  const comparisons = comparisonResults(compared, results, {
    ...settings.comparisons,
    level: settings.level,
  });
  return { experiments, comparisons };
}

/** The default threshold below which a cell is exploratory (see docs/protocol.md#report). */
export const EXPLORATORY_BELOW_WORLDS = 30;

function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function blockCounter(scores: RunScores): AnalysisContext['blockCounts'] {
  return (experiment, load) => {
    const rows = scores.blocks.filter(
      (b) => b.experiment === experiment && (load === null || b.load === load),
    );
    return {
      planned: rows.length,
      complete: rows.filter((b) => b.status === 'complete').length,
      incomplete: rows.filter((b) => b.status === 'incomplete').length,
      missing: rows.filter((b) => b.status === 'not_started').length,
    };
  };
}

/**
 * The analysis context over held scores, with the function that releases what it read (the
 * observation lists and every world's contribution; read again when next asked for).
 */
function analysisContext(
  records: RunRecords,
  scores: HeldScores,
  seeds: readonly number[],
  options: AnalyzeRunOptions,
): { context: AnalysisContext; release: () => void } {
  const worlds = new HeldWorlds(seeds, scores);
  const context: AnalysisContext = {
    systems: records.manifest.systems.map((s) => s.id),
    scores,
    sets: estimandWorldSets(scores),
    alphas: options.alphas ?? EQUAL_ALPHAS,
    taus: records.manifest.analysis.taus,
    exploratoryBelowWorlds: options.exploratoryBelowWorlds ?? EXPLORATORY_BELOW_WORLDS,
    world: (seed) => worlds.world(seed),
    blockCounts: blockCounter(scores),
  };
  const release = () => {
    worlds.release();
    scores.release();
  };
  return { context, release };
}

/**
 * Computes every displayed number from the scores: capacity curves with intervals, EIMC at each
 * tau, controls, history, behavior, failure taxonomy, resources and missingness. Pure; one
 * cluster bootstrap over worlds (the recorded analysis seed and resample count) recomputes every
 * nonlinear aggregate in each replicate, so model, load, history and checkpoint stay paired.
 *
 * Each experiment's part is the `analysis` of its scorer (`scores.modules`, in the order of the
 * scorers the run was scored with; `BUILT_IN_SCORERS`: memory, history, behavior): each registers
 * its estimands on the one bootstrap, in that order, then reads its results.
 */
export function analyzeRun(
  records: RunRecords,
  runScores: RunScores,
  options: AnalyzeRunOptions = {},
): RunChartData {
  // each observation list read once per phase, and released before the bootstrap
  const scores = new HeldScores(runScores);
  // Clusters: every planned world, in seed order. One replicate draws one multiset of them and
  // every estimand keeps the drawn worlds of its own world set, so the draws never depend on
  // which blocks happen to be complete.
  const seeds = plannedWorlds(records.manifest.worldSeeds, analysedObservations(scores));
  const { context, release } = analysisContext(records, scores, seeds, options);
  const { comparisons, experiments } = experimentParts(
    context,
    release,
    new BootstrapRegistry(seeds),
    {
      ...records.manifest.analysis,
      comparisons: comparisonSettings(records, options.compareTo ?? null),
    },
  );
  const replay = transcriptReplayRows(records, scores);
  const wordings = wordingAgreementRows(records, scores);
  release();
  const log = attemptLogFacts(records);
  const stored = log.bytesStored;
  return {
    kind: 'chi-chart-data',
    schemaVersion: 1,
    run: runFacts(records, log.facts, context.exploratoryBelowWorlds),
    experiments,
    resources: resources(records, log.resourceFacts, {
      systems: context.systems,
      blockKinds: analysedBlockKinds(scores),
    }),
    corpus: log.corpus,
    missingness: {
      blocks: [...scores.blocks],
      failures: failureCounts(records),
      smoke: records.smoke.map((s) => ({
        systemId: s.systemId,
        at: s.at,
        passed: s.passed,
        detail: s.detail,
      })),
    },
    chi: { value: null, reason: NO_CALIBRATION_REASON },
    // Opt-in parts are absent when empty, so a run without them keeps its chart-data bytes.
    ...(replay.length === 0 ? {} : { transcriptReplay: replay }),
    ...(stored.length === 0 ? {} : { bytesStored: stored }),
    ...(wordings.length === 0 ? {} : { wordingAgreement: wordings }),
    ...(context.systems.length < 2 ? {} : { comparisons }),
  };
}

/**
 * The quantization the catalog reports for a model's allowlisted endpoints (`tag: quantization`),
 * or nothing without a catalog entry (the field stays absent, so such runs keep their bytes).
 */
function quantizationOf(records: RunRecords, model: string): { quantization?: string[] } {
  const entry = records.catalog?.models.find((candidate) => candidate.model === model);
  if (entry === undefined) return {};
  return {
    quantization: entry.endpoints
      .filter((endpoint) => endpoint.allowed)
      .map((endpoint) => `${endpoint.tag}: ${endpoint.quantization ?? 'unknown'}`),
  };
}

/**
 * The primary checkpoint of a manifest written before it was frozen there: 3, what the report
 * then chose in code. Every newer manifest carries its own (`analysis.primaryCheckpoint`).
 */
export const LEGACY_PRIMARY_CHECKPOINT = 3;

/** Which pairs to compare and which systems are scripted baselines, from the manifest. */
function comparisonSettings(records: RunRecords, compareTo: string | null): ComparisonSettings {
  const systems = records.manifest.systems;
  if (compareTo !== null && !systems.some((s) => s.id === compareTo)) {
    throw new InvalidArgumentError(
      'compareTo',
      `names no system of the run; the systems are ${systems.map((s) => s.id).join(', ')}`,
    );
  }
  const scripted = new Set(
    systems.filter((s) => isScriptedOrSynthetic(s.evidenceClass)).map((s) => s.id),
  );
  return {
    referenceSystem: compareTo,
    scripted: (id) => scripted.has(id),
    primaryCheckpoint: records.manifest.analysis.primaryCheckpoint ?? LEGACY_PRIMARY_CHECKPOINT,
  };
}

/** The run's facts as the chart data records them (systems, seeds, analysis, transport). */
function runFacts(
  records: RunRecords,
  attempts: AttemptFacts,
  exploratoryBelowWorlds: number,
): ChartData['run'] {
  const { manifest } = records;
  const analysis = manifest.analysis;
  return {
    protocol: manifest.protocol,
    runId: records.status?.runId ?? defaultRunId(manifest.createdAt, records.manifestSha256),
    manifestSha256: records.manifestSha256,
    evidenceClass: manifest.evidenceClass,
    systems: manifest.systems.map((s) => ({
      id: s.id,
      model: s.model,
      kind: s.kind,
      evidenceClass: s.evidenceClass,
      uncappedNotebook: s.uncappedNotebook ?? false,
      ...(s.memory === 'system' ? { memory: 'system' as const } : {}),
      ...(s.instanceControl === undefined ? {} : { instanceControl: s.instanceControl }),
      providers: [...s.providers],
      ...quantizationOf(records, s.model),
      reasoningEffort: s.reasoningEffort,
      maxOutputTokens: s.maxOutputTokens,
      safetyPrice: s.safetyPrice === null ? null : { ...s.safetyPrice },
      returned: attempts.returned.get(s.id) ?? [],
    })),
    worldSeeds: [...manifest.worldSeeds],
    notebookCapBytes: manifest.notebookCapBytes,
    createdAt: manifest.createdAt,
    lastActivityAt: attempts.lastActivityAt,
    analysis: {
      seed: analysis.seed,
      resamples: analysis.resamples,
      level: analysis.level,
      taus: [...analysis.taus],
      primaryCheckpoint: analysis.primaryCheckpoint ?? LEGACY_PRIMARY_CHECKPOINT,
      exploratoryBelowWorlds,
    },
    transport: {
      ceilingUsd: manifest.ceilingUsd,
      deadlineMs: manifest.deadlineMs,
      maxRetries: manifest.retry.maxRetries,
      retryAfterCapMs: manifest.retry.retryAfterCapMs,
      reservationMargin: manifest.reservationMargin,
    },
    calibrationId: manifest.calibrationId ?? null,
    policies: manifest.policies === undefined ? null : { ...manifest.policies },
    featureSchemas: (manifest.featureSchemas ?? []).map((f) => ({
      ...f,
      features: [...f.features],
    })),
  };
}

/** `yyyymmddThhmmssZ-<first 8 hex of the manifest hash>`, as RUN-FOLDER.md names runs. */
export function defaultRunId(createdAt: string, manifestSha256: string): string {
  const compact = createdAt.replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `${compact}-${manifestSha256.slice(0, 8)}`;
}

/** The model and provider identifiers an endpoint returned, with how many responses gave them. */
type ReturnedIdentifier = { model: string | null; provider: string | null; responses: number };

/** What the run facts read from the attempt log (see {@link attemptFactsFold}). */
type AttemptFacts = {
  lastActivityAt: string | null;
  returned: Map<string, ReturnedIdentifier[]>;
};

/**
 * What the run facts read from the attempt log, record by record: the last activity, and per
 * system the identifiers the endpoint returned (see {@link returnedIdentifiers}).
 */
function attemptFactsFold(): { add(a: AttemptRecord): void; result(): AttemptFacts } {
  let lastActivityAt: string | null = null;
  const counts = new Map<string, Map<string, ReturnedIdentifier>>();
  const add = (a: AttemptRecord): void => {
    if (lastActivityAt === null || a.at > lastActivityAt) lastActivityAt = a.at;
    if (a.phase !== 'after_response' || a.result === null) return;
    const model = a.result.returnedModel;
    const provider = a.result.returnedProvider;
    const key = JSON.stringify([model, provider]);
    const system = counts.get(a.systemId) ?? new Map<string, ReturnedIdentifier>();
    counts.set(a.systemId, system);
    const entry = system.get(key) ?? { model, provider, responses: 0 };
    entry.responses++;
    system.set(key, entry);
  };
  const result = (): AttemptFacts => {
    const returned = new Map<string, ReturnedIdentifier[]>();
    for (const [systemId, system] of counts)
      returned.set(
        systemId,
        [...system.entries()].sort(([a], [b]) => compareUtf8(a, b)).map(([, entry]) => entry),
      );
    return { lastActivityAt, returned };
  };
  return { add, result };
}

/**
 * The model and provider identifiers the endpoint returned for one system, counted over every
 * resolved attempt (`after_response`), sorted; the requested ID is in the manifest beside it.
 */
export function returnedIdentifiers(
  records: Pick<RunRecords, 'attempts'>,
  systemId: string,
): ReturnedIdentifier[] {
  const fold = attemptFactsFold();
  for (const a of records.attempts) fold.add(a);
  return fold.result().returned.get(systemId) ?? [];
}

/** What {@link resources} reads of an attempt's result. */
type ResourceFacts = Pick<ChatResult, 'failure' | 'usage' | 'chargedUsd' | 'latencyMs'>;

/**
 * The resource facts of every attempt's latest resolved result, by attempt ID (a later
 * `after_response` of the same attempt replaces an earlier one in place). Only what the resource
 * table sums is kept: holding the results whole kept every reply text and redacted response body of
 * the run live at once (about the attempt log's size).
 */
function latestResourceFactsFold(): {
  add(a: AttemptRecord): void;
  result(): Map<string, ResourceFacts>;
} {
  const latest = new Map<string, ResourceFacts>();
  return {
    add(a) {
      if (a.phase !== 'after_response' || a.result === null) return;
      const { failure, usage, chargedUsd, latencyMs } = a.result;
      latest.set(a.attemptId, { failure, usage, chargedUsd, latencyMs });
    },
    result: () => latest,
  };
}

/**
 * What the chart data reads from the attempt log without the scores, from one pass over the
 * records (each lazy record is parsed and validated once a pass) feeding four folds: the run
 * facts, the resource facts, the corpus per load and the bytes stored.
 */
function attemptLogFacts(records: RunRecords): {
  facts: AttemptFacts;
  resourceFacts: Map<string, ResourceFacts>;
  corpus: CorpusRow[];
  bytesStored: BytesStoredRow[];
} {
  const folds = {
    facts: attemptFactsFold(),
    resources: latestResourceFactsFold(),
    corpus: corpusPerLoadFold(records.plan),
    stored: bytesStoredFold(records),
  };
  for (const a of records.attempts) {
    folds.facts.add(a);
    folds.resources.add(a);
    folds.corpus.add(a);
    folds.stored.add(a);
  }
  return {
    facts: folds.facts.result(),
    resourceFacts: folds.resources.result(),
    corpus: folds.corpus.rows(),
    bytesStored: folds.stored.rows(),
  };
}

/** The order of the resource table: systems in manifest order, then block kinds. */
interface ResourceOrder {
  readonly systems: readonly string[];
  /** Block kinds of the scorers with an analysis, in scorer order ({@link analysedBlockKinds}). */
  readonly blockKinds: readonly string[];
}

/**
 * The block kinds of the scorers with a run-level analysis, in scorer order (`BUILT_IN_SCORERS`:
 * memory, controls, history, behavior): the order of the resource table. A kind of any other
 * scorer sorts before them, in the order its rows were met.
 */
function analysedBlockKinds(scores: RunScores): string[] {
  return [...scores.modules.values()].flatMap(({ scorer }) =>
    asReportScorer(scorer).analysis === undefined ? [] : (scorer.blocks?.blockExperiments ?? []),
  );
}

function resources(
  records: RunRecords,
  latestResourceFacts: ReadonlyMap<string, ResourceFacts>,
  order: ResourceOrder,
): ResourceRow[] {
  const plannedRequest = plannedRequestOf(records.plan);
  const rows = new Map<
    string,
    { row: Omit<ResourceRow, 'latencyMsMedian' | 'latencyMsMax'>; latencies: number[] }
  >();
  for (const [attemptId, result] of latestResourceFacts) {
    const requestId = attemptId.replace(/#\d+$/, '');
    const request = plannedRequest(requestId);
    if (request === undefined) continue;
    // the planned block's load (null for an experiment without loads)
    const load = request.load;
    const key = `${request.systemId}|${request.experiment}|${load ?? ''}`;
    const entry = rows.get(key) ?? {
      row: {
        systemId: request.systemId,
        experiment: request.experiment,
        load,
        requests: 0,
        failedRequests: 0,
        promptTokens: 0,
        completionTokens: 0,
        reasoningTokens: 0,
        requestsWithoutUsage: 0,
        costUsd: 0,
      },
      latencies: [],
    };
    const u = result.usage;
    entry.row = {
      ...entry.row,
      requests: entry.row.requests + 1,
      failedRequests: entry.row.failedRequests + (result.failure === 'none' ? 0 : 1),
      promptTokens: entry.row.promptTokens + (u.promptTokens ?? 0),
      completionTokens: entry.row.completionTokens + (u.completionTokens ?? 0),
      reasoningTokens: entry.row.reasoningTokens + (u.reasoningTokens ?? 0),
      requestsWithoutUsage:
        entry.row.requestsWithoutUsage +
        (u.promptTokens === null && u.completionTokens === null ? 1 : 0),
      costUsd: entry.row.costUsd + result.chargedUsd,
    };
    entry.latencies.push(result.latencyMs);
    rows.set(key, entry);
  }
  return resourceRows(rows.values(), order);
}

/** The resource rows with their latency summaries, by system, experiment and load. */
function resourceRows(
  entries: Iterable<{
    row: Omit<ResourceRow, 'latencyMsMedian' | 'latencyMsMax'>;
    latencies: number[];
  }>,
  { systems, blockKinds }: ResourceOrder,
): ResourceRow[] {
  return [...entries]
    .map(({ row, latencies }) => ({
      ...row,
      latencyMsMedian: median(latencies),
      latencyMsMax: latencies.length === 0 ? null : latencies.reduce((a, b) => Math.max(a, b)),
    }))
    .sort(
      (a, b) =>
        systems.indexOf(a.systemId) - systems.indexOf(b.systemId) ||
        blockKinds.indexOf(a.experiment) - blockKinds.indexOf(b.experiment) ||
        (a.load ?? 0) - (b.load ?? 0),
    );
}

function failureCounts(records: RunRecords): FailureCount[] {
  const counts = new Map<string, FailureCount>();
  for (const f of records.failures) {
    const key = `${f.category}|${f.failure ?? ''}`;
    const prior = counts.get(key);
    counts.set(key, { category: f.category, failure: f.failure, count: (prior?.count ?? 0) + 1 });
  }
  return [...counts.values()].sort((a, b) =>
    compareUtf8(`${a.category}|${a.failure ?? ''}`, `${b.category}|${b.failure ?? ''}`),
  );
}
