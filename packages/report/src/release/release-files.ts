import type { RunChartData, TraceLineBase } from '@chi/analysis';
import { analyzeProfiles, chartDataFile, type RunScores, runEvidenceBanner } from '@chi/analysis';
import {
  chanceAccuracy,
  compareUtf8,
  runLevelChiReason,
  systemLabel,
} from '@chi/analysis/internal';
import type { AnyExperimentScorer } from '@chi/experiment';
import { buildFigures, profilesFigure, renderFigureSvg } from '@chi/figures';
import { systemColorScale } from '@chi/figures/internal';
import { type RequestLayout, RUN_FILES } from '@chi/run';
import { isPublishedRunFile, RUN_FILE_NAME, releaseLayoutRow } from '@chi/run/internal';
import { EQUAL_ALPHAS } from '@chi/scoring';
import { type QualityAlphas, STRATA } from '@chi/spec';
import { canonicalJson } from '../canonical-json';
import { RELEASE_INTERVAL_METHOD } from '../document/interval-wording';
import { renderHtml, renderMarkdown } from '../document/render-report';
import type { ReportBlock } from '../document/report-block';
import { buildCasesDocument, REPORT_CASES_FILES } from '../document/report-cases';
import { buildReportDocument } from '../document/report-document';
import { buildModuleFigures } from '../experiment-scorers/module-figures-release';
import { buildModuleRelease } from '../experiment-scorers/module-release';
import { BUILT_IN_SCORERS } from '../experiment-scorers/scorer-registry';
import { REPORT_VERSION } from '../report-version';
import { PackedText } from '../run-folder/packed-text';
import { plannedRequestOf } from '../run-folder/plan-view';
import type { RunRecords } from '../run-folder/run-folder';
import {
  type AnalyzeRunOptions,
  analyzeRun,
  EXPLORATORY_BELOW_WORLDS,
} from '../scoring/analyze-run';
import { type BlockResult, scoreRun, scoreRunFrom, type TraceSink } from '../scoring/score-run';
import { type CaseCandidate, type CaseExample, CaseExampleSelector } from './case-examples';
import { type CsvCell, csvHeader, csvLine, toCsv } from './csv';
import type { DerivedOutput } from './derived-output';
import { figureFiles } from './figure-files';
import { profileFiles, profileReportBlocks } from './profiles-files';
import {
  describeReleaseCode,
  RELEASE_VERIFY_COMMAND,
  type ReleaseCode,
  type ReleaseCodeSection,
} from './release-code';
import { BUILT_IN_RELEASE_OUTPUTS } from './release-output-registry';
import { type ExperimentReleaseOutput, experimentsIncluded } from './release-outputs';
import { type ReleaseStream, releaseThreads, streamReleaseTask } from './release-workers';

/** Parameters that shape the derived part of a release; all are recorded in `parameters/`. */
export interface ReleaseParameters {
  readonly alphas: QualityAlphas;
  readonly exploratoryBelowWorlds: number;
  /** Case examples per verdict per system x condition x load x stratum. */
  readonly caseExamplesPerVerdict: number;
}

/** The protocol defaults. */
export const DEFAULT_RELEASE_PARAMETERS: ReleaseParameters = {
  alphas: EQUAL_ALPHAS,
  exploratoryBelowWorlds: EXPLORATORY_BELOW_WORLDS,
  caseExamplesPerVerdict: 1,
};

/**
 * Files copied from the run folder (re-serialized as canonical JSON where they are JSON; gzip
 * payloads byte for byte), as path prefixes: the published entries of `RUN_FILES` (`@chi/run`).
 * They are the raw inputs `chi verify` recomputes everything else from. Anything else in a
 * release is derived.
 */
export const RAW_PREFIXES: readonly string[] = [
  ...new Set(
    RUN_FILES.filter((entry) => entry.role === 'raw' || entry.role === 'derived').map((entry) => {
      const slash = entry.path.indexOf('/');
      return slash === -1 ? entry.path : entry.path.slice(0, slash + 1);
    }),
  ),
];

/** Whether a release path is raw (copied from the run) rather than derived. */
export function isRawPath(path: string): boolean {
  return isPublishedRunFile(path);
}

/** Writes `values` as JSONL a line at a time, never as one text (an empty file for none). */
function writeJsonl(files: DerivedOutput, path: string, values: readonly unknown[]): void {
  if (values.length === 0) files.file(path, '');
  for (const value of values) files.appendLine(path, `${canonicalJson(value)}\n`);
}

/**
 * The derived part of a release: path -> exact text, the trace files and every text of at least
 * 65,536 characters apart (held packed from the moment they are produced
 * until they are written or compared). Also the chart data, for callers that need it.
 */
export interface DerivedRelease {
  readonly files: Map<string, string>;
  /**
   * The trace files (`traces/...`, JSONL appended line by line) and the long texts, path ->
   * packed text; {@link derivedPaths} lists both maps, {@link derivedText} reads either.
   */
  readonly packedFiles: ReadonlyMap<string, PackedText>;
  readonly chartData: RunChartData;
  readonly scores: RunScores;
}

/** A derived text at least this long is held deflated from the moment it is produced. */
const PACK_DERIVED_TEXT_CHARS = 64 * 1024;

/**
 * The derived files held in memory while a release is built ({@link buildDerivedRelease}): short
 * texts as they are, the trace files and long texts deflated as soon as they are produced, so the
 * derived tables of a long run (usage, scores, per-world CSV, chart data, report) are not all held
 * as text until the last one is made.
 */
class DerivedFilesInMemory implements DerivedOutput {
  readonly plain = new Map<string, string>();
  readonly packed = new Map<string, PackedText>();

  file(path: string, text: string): void {
    if (text.length < PACK_DERIVED_TEXT_CHARS) {
      this.plain.set(path, text);
      this.packed.delete(path);
      return;
    }
    const packed = new PackedText();
    packed.append(text);
    this.packed.set(path, packed);
    this.plain.delete(path);
  }

  appendLine(path: string, line: string): void {
    let file = this.packed.get(path);
    if (file === undefined) {
      this.plain.delete(path);
      file = new PackedText();
      this.packed.set(path, file);
    }
    file.append(line);
  }
}

/**
 * Where the release's traces go while the run is scored: each line straight into the trace file
 * its scorer names (`blocks.traceFile`) in the derived output (deflated in memory, or written to
 * disk), and each line an experiment's release output takes as a case candidate
 * (`ExperimentReleaseOutput.cases`) offered to the case-example selection. Nothing keeps a run's
 * worth of trace objects.
 */
class ReleaseTraceSink implements TraceSink {
  readonly #output: DerivedOutput;
  readonly #scorers: readonly AnyExperimentScorer[];
  readonly #outputs: readonly ExperimentReleaseOutput[];
  readonly cases: CaseExampleSelector<CaseCandidate>;

  constructor(
    output: DerivedOutput,
    perVerdict: number,
    systems: readonly string[],
    scorers: readonly AnyExperimentScorer[],
    outputs: readonly ExperimentReleaseOutput[],
  ) {
    this.#output = output;
    this.#scorers = scorers;
    this.#outputs = outputs;
    this.cases = new CaseExampleSelector(perVerdict, systems);
  }

  trace(experimentId: string, line: TraceLineBase): void {
    const scorer = this.#scorers.find((s) => s.experimentId === experimentId);
    const file = scorer?.blocks?.traceFile(line);
    if (file === undefined) throw new Error(`no trace file for experiment ${experimentId}`);
    this.#output.appendLine(file, `${canonicalJson(line)}\n`);
    const cases = this.#outputs.find((o) => o.experimentId === experimentId)?.cases;
    const candidate = cases?.candidate(line) ?? null;
    if (candidate !== null) this.cases.add(candidate);
  }
}

/** The case examples, each chosen probe's notebook read from the run only now. */
function caseExamplesOf(
  sink: ReleaseTraceSink,
  scores: RunScores,
  outputs: readonly ExperimentReleaseOutput[],
): CaseExample[] {
  const lookups = outputs.flatMap((o) =>
    o.cases === undefined ? [] : [o.cases.notebooks(scores)],
  );
  return sink.cases.examples((probe) => {
    for (const lookup of lookups) {
      const notebook = lookup(probe);
      if (notebook !== null) return notebook;
    }
    return null;
  });
}

/** The columns of `usage.csv`, in order. */
const USAGE_COLUMNS: readonly string[] = [
  'attemptId',
  'requestId',
  'systemId',
  'blockId',
  'experiment',
  'task',
  'startedAt',
  'finishedAt',
  'latencyMs',
  'failure',
  'finishReason',
  'truncated',
  'promptTokens',
  'completionTokens',
  'reasoningTokens',
  'totalTokens',
  'reportedCostUsd',
  'reservedUsd',
  'chargedUsd',
  'requestedModel',
  'returnedModel',
  'returnedProvider',
  'generationId',
  'tries',
  'retryWaitsMs',
  'inputBytes',
  'requestSha256',
];

/** The `usage.csv` row of an attempt: one per resolved attempt (`after_response` with a result). */
function usageRow(
  a: RunRecords['attempts'][number],
  plannedRequest: (requestId: string) => RunRecords['plan']['requests'][number] | undefined,
): Record<string, CsvCell> | null {
  if (a.phase !== 'after_response' || a.result === null) return null;
  const r = a.result;
  const request = plannedRequest(a.requestId);
  return {
    attemptId: a.attemptId,
    requestId: a.requestId,
    systemId: a.systemId,
    blockId: a.blockId,
    experiment: request?.experiment ?? null,
    task: request?.task ?? null,
    startedAt: r.startedAt,
    finishedAt: r.finishedAt,
    latencyMs: r.latencyMs,
    failure: r.failure,
    finishReason: r.finishReason,
    truncated: r.truncated,
    promptTokens: r.usage.promptTokens,
    completionTokens: r.usage.completionTokens,
    reasoningTokens: r.usage.reasoningTokens,
    totalTokens: r.usage.totalTokens,
    reportedCostUsd: r.usage.costUsd,
    reservedUsd: r.reservedUsd,
    chargedUsd: r.chargedUsd,
    requestedModel: r.requestedModel,
    returnedModel: r.returnedModel,
    returnedProvider: r.returnedProvider,
    generationId: r.generationId,
    tries: r.tries.length,
    retryWaitsMs: r.tries
      .map((t) => t.waitMs ?? 0)
      .filter((w) => w > 0)
      .join(' '),
    inputBytes: a.inputBytes,
    requestSha256: a.requestSha256,
  };
}

/**
 * Writes `usage.csv` a row at a time, each attempt read from the log as it is reached, so neither
 * the attempts nor their rows are held (the whole table is `toCsv(USAGE_COLUMNS, rows)`).
 */
function writeUsageCsv(records: RunRecords, files: DerivedOutput): void {
  const plannedRequest = plannedRequestOf(records.plan);
  files.appendLine('usage.csv', `${csvHeader(USAGE_COLUMNS)}\n`);
  for (const attempt of records.attempts) {
    const row = usageRow(attempt, plannedRequest);
    if (row !== null) files.appendLine('usage.csv', `${csvLine(USAGE_COLUMNS, row)}\n`);
  }
}

function verifyInstructions(code: ReleaseCodeSection | null): string[] {
  if (code?.verifier == null)
    return [
      'Read `report.html` (self-contained) or `report.md`. This release carries no code (it was',
      'written without it); check and recompute everything with the `chi` command of the',
      '`@chi/pilot` version that `release.json` records, from inside this folder:',
      '',
      '```sh',
      'sha256sum -c SHA256SUMS          # every file is as published',
      'chi verify .                     # re-parses, re-scores and re-bootstraps every number',
      '```',
      '',
    ];
  return [
    'Read `report.html` (self-contained) or `report.md`. Check and recompute everything from inside',
    'this folder; only Node.js (>= 20.19) is needed, no network and no other files:',
    '',
    '```sh',
    'sha256sum -c SHA256SUMS          # every file is as published',
    `${RELEASE_VERIFY_COMMAND.padEnd(32)} # re-parses, re-scores and re-bootstraps every number`,
    '```',
    '',
    `\`${code.verifier.file}\` is \`@chi/report\`'s verifier bundled with its runtime dependencies into one`,
    'file. `code/packages/` holds the packed `@chi/*` packages that generated, scored and analysed',
    'this run, as npm tarballs; `release.json` lists each with its version, SHA-256 and npm',
    'integrity. `npm install ./code/packages/*.tgz` installs them (their third-party dependencies',
    'then come from the npm registry) to re-run any step.',
    '',
  ];
}

/** The README rows that say where requests and worlds are (they moved in run-folder layout 0.2). */
function requestRows(layout: RequestLayout): string[] {
  if (layout === '0.1')
    return [releaseLayoutRow('legacyRequests'), releaseLayoutRow('legacyWorlds')];
  return [releaseLayoutRow('requests'), releaseLayoutRow('worlds')];
}

function releaseReadme(
  data: RunChartData,
  code: ReleaseCodeSection | null,
  layout: RequestLayout,
): string {
  const banner = runEvidenceBanner(data.run);
  return [
    `# Release of run ${data.run.runId}`,
    '',
    ...(banner === null ? [] : [`> **${banner}**`, '']),
    `Protocol: ${data.run.protocol}. Manifest SHA-256: ${data.run.manifestSha256}.`,
    '',
    ...verifyInstructions(code),
    '| Path | What |',
    '| --- | --- |',
    releaseLayoutRow('manifest'),
    '| `release.json` | generators and toolkit versions, seeds, evidence class, the packed code with its hashes |',
    ...(code === null
      ? []
      : [
          '| `code/` | the packed `@chi/*` packages (npm tarballs) and the self-contained verifier |',
        ]),
    '| `parameters/` | scoring and analysis parameters used for every number |',
    ...requestRows(layout),
    releaseLayoutRow('plan'),
    releaseLayoutRow('attempts'),
    releaseLayoutRow('notebooks'),
    releaseLayoutRow('logs'),
    releaseLayoutRow('chis'),
    '| `scores/` | per system x block observations (incomplete blocks included, flagged) |',
    '| `traces/` | per-probe and per-item traces with the failure-taxonomy reason |',
    '| `chart-data/` | every displayed number as JSON and CSV with the worlds it uses (used / complete / planned), per-world results marking the worlds each curve and distance uses, and the case examples |',
    '| `figures/` | SVG figures |',
    '| `profiles/` | capacity profile p, features z, similarity h and CHI (with p beside it) as separate tables; h and CHI null with the reason without a calibration |',
    releaseLayoutRow('calibration'),
    '| `report.md`, `report.html` | the report: summary, contents, figures, tables, glossary |',
    '| `report-cases.md`, `report-cases.html` | case examples: a passing and a failing probe per cell, with notebook excerpt and trace |',
    '| `SHA256SUMS` | SHA-256 of every other file |',
    '',
    'No API key, authorization header, account balance or hidden reasoning text is included.',
    '',
  ].join('\n');
}

/** Every derived path of a release (plain and packed files), sorted by UTF-8 bytes. */
export function derivedPaths(derived: DerivedRelease): string[] {
  return [...derived.files.keys(), ...derived.packedFiles.keys()].sort(compareUtf8);
}

/** The exact text of one derived file, or undefined when the release derives no such file. */
export function derivedText(derived: DerivedRelease, path: string): string | undefined {
  return derived.files.get(path) ?? derived.packedFiles.get(path)?.text();
}

/** The capacity and similarity profiles' figure (with its rows) and report section. */
async function profileFigureSection(
  data: RunChartData,
  profiles: ReturnType<typeof analyzeProfiles>,
  figureNumber: number,
): Promise<{ files: Map<string, string>; blocks: ReportBlock[] }> {
  const files = new Map<string, string>();
  const figure = profilesFigure(
    profiles,
    new Map(data.run.systems.map((system) => [system.id, systemLabel(data.run, system.id)])),
    systemColorScale(data.run),
  );
  const svg = await renderFigureSvg(figure);
  files.set(figure.svgPath, svg);
  files.set(`chart-data/${figure.id}.csv`, toCsv(figure.columns, figure.rows));
  return { files, blocks: profileReportBlocks(profiles, { figure, svg, number: figureNumber }) };
}

/** The folder the records were read from: a run folder, or a release (`release: true`). */
export interface RecordsSource {
  readonly dir: string;
  readonly release: boolean;
  /** Also check the release's hashes and raw records on the worker once its blocks are scored. */
  readonly verify?: boolean;
}

/**
 * The threads (`CHI_WORKERS`, main included) from which the blocks are also scored on a worker:
 * at 2 the one worker takes only work that is not repeated (the raw files of `chi score`, the
 * hash checks of `chi verify`), since a block-scoring worker reads and folds the run again (about
 * a quarter more CPU time) and, with no idle core on a shared machine, bought no wall time
 * (docs/benchmarks/throughput.md, "`chi score` and `chi verify` on two threads").
 */
export const BLOCK_SCORING_THREADS = 3;

/**
 * Starts the block scoring of a release's run on a worker thread (`score-blocks`: the worker reads
 * the folder `source` names itself and scores every other block, `scoreRunFrom` the rest), or
 * returns null when the command has one thread, no worker entry exists, or the scorers are not
 * the built-in ones (a worker scores with those only): then `scoreRun` scores every block here.
 */
export function startBlockScoring(
  source: RecordsSource,
  scorers: readonly AnyExperimentScorer[] | undefined,
  alphas: QualityAlphas,
): ReleaseStream<readonly BlockResult[]> | null {
  if (scorers !== undefined && scorers !== BUILT_IN_SCORERS) return null;
  if (releaseThreads() < BLOCK_SCORING_THREADS) return null;
  return streamReleaseTask<readonly BlockResult[]>('score-blocks', { ...source, alphas });
}

/**
 * Computes the derived part of a release from the raw run records: scores, traces, chart data
 * (JSON + CSV), figures, case examples, report and metadata. Deterministic: the same records and
 * parameters give the same bytes. `writeRelease` writes these files and `verifyRelease` compares a
 * release's files against them. `code` is the release's `code/` folder (packed packages and the
 * verifier); `release.json` lists it with its hashes and the README's verify command runs it.
 * `scorers` score the run (default: the toolkit's own, `BUILT_IN_SCORERS`; an added experiment
 * passes its scorer beside them).
 *
 * The files are held in memory (the trace files and long texts deflated); `writeRelease` and
 * `verifyRelease` write them to disk as they are produced instead (`produceDerivedRelease`).
 */
export async function buildDerivedRelease(
  records: RunRecords,
  parameters: ReleaseParameters = DEFAULT_RELEASE_PARAMETERS,
  code: ReleaseCode = new Map(),
  scorers: readonly AnyExperimentScorer[] = BUILT_IN_SCORERS,
): Promise<DerivedRelease> {
  const files = new DerivedFilesInMemory();
  const { chartData, scores } = await produceDerivedRelease(
    records,
    files,
    parameters,
    code,
    scorers,
  );
  return {
    files: new Map([...files.plain.entries()].sort(([a], [b]) => compareUtf8(a, b))),
    packedFiles: new Map([...files.packed.entries()].sort(([a], [b]) => compareUtf8(a, b))),
    chartData,
    scores,
  };
}

/**
 * {@link buildDerivedRelease} into `files`: every derived file goes there as soon as it is
 * produced (a trace file line by line, while the run is scored), so an output that writes to disk
 * holds none of them. Returns the chart data and the scores.
 */
export async function produceDerivedRelease(
  records: RunRecords,
  files: DerivedOutput,
  parameters: ReleaseParameters = DEFAULT_RELEASE_PARAMETERS,
  code: ReleaseCode = new Map(),
  scorers: readonly AnyExperimentScorer[] = BUILT_IN_SCORERS,
  scoredElsewhere?: AsyncIterable<readonly BlockResult[]>,
): Promise<{ chartData: RunChartData; scores: RunScores }> {
  const codeSection = describeReleaseCode(code);
  const traces = new ReleaseTraceSink(
    files,
    parameters.caseExamplesPerVerdict,
    records.manifest.systems.map((s) => s.id),
    scorers,
    BUILT_IN_RELEASE_OUTPUTS,
  );
  // one pass over the attempt log feeds every scorer (docs/architecture.md, "Scoring and analysis")
  // (every other block scored on a worker thread when `scoredElsewhere` streams its results)
  const scores =
    scoredElsewhere === undefined
      ? scoreRun(records, { alphas: parameters.alphas, traces, scorers })
      : await scoreRunFrom(records, { alphas: parameters.alphas, traces }, scoredElsewhere);
  const analyzeOptions: AnalyzeRunOptions = {
    alphas: parameters.alphas,
    exploratoryBelowWorlds: parameters.exploratoryBelowWorlds,
    // frozen in the manifest (`chi pilot --compare-to`), so `chi verify` recomputes the same pairs
    compareTo: records.manifest.analysis.compareTo ?? null,
  };
  const analyzed = analyzeRun(records, scores, analyzeOptions);
  const profiles = analyzeProfiles(records.manifest, records.calibration ?? null, scores, {
    alphas: parameters.alphas,
    chanceAccuracy: chanceAccuracy(records.behaviorItems),
  });
  const data = {
    ...analyzed,
    chi: { ...analyzed.chi, reason: runLevelChiReason(profiles, analyzed.chi.reason) },
  };
  const { manifest } = records;

  files.file(
    'release.json',
    canonicalJson({
      kind: 'chi-release',
      schemaVersion: 1,
      runId: data.run.runId,
      protocol: manifest.protocol,
      manifestSha256: records.manifestSha256,
      evidenceClass: manifest.evidenceClass,
      evidenceBanner: runEvidenceBanner(data.run),
      runCreatedAt: manifest.createdAt,
      lastActivityAt: data.run.lastActivityAt,
      generators: manifest.generators,
      worldSeeds: manifest.worldSeeds,
      analysisSeed: manifest.analysis.seed,
      systems: manifest.systems.map((s) => ({
        id: s.id,
        model: s.model,
        kind: s.kind,
        evidenceClass: s.evidenceClass,
        scripted: s.scripted ?? null,
        providers: s.providers,
        // what the endpoint said answered, next to the requested model (from the attempt records)
        returned: data.run.systems.find((r) => r.id === s.id)?.returned ?? [],
      })),
      calibrationId: manifest.calibrationId ?? null,
      toolkit: { '@chi/report': REPORT_VERSION },
      code: codeSection,
    }),
  );
  files.file(
    'parameters/scoring.json',
    canonicalJson({
      alphas: parameters.alphas,
      ...Object.assign(
        {},
        ...BUILT_IN_RELEASE_OUTPUTS.map((output) => output.scoringParameters?.(manifest) ?? {}),
      ),
      strata: STRATA,
      qualityScore: 'Q_M = r^a_r * t^a_t * s^a_s * u^a_u * i^a_i * (1-f)^a_f, no epsilon floor',
      answerRules:
        'A reply is JSON holding, per requested ID, exactly one object {id, value, source}; both null = explicit abstention, one null = invalid; missing, duplicate or malformed answers fail. r, t, u, i score the value; s needs value and source; a lure passes only on explicit abstention.',
      unusableReply:
        'A request without a usable reply (model failure, infrastructure failure, abandoned, not sent) gives a missing answer for every ID it asked about.',
      requestedIds:
        'Read from the QUESTIONS (memory, history) or ITEMS (behavior) JSON block of the rendered request.',
      blockComplete:
        'Every registered request of every system resolved without an infrastructure failure (http_retryable, connection_retryable, budget_refused) and was not abandoned.',
    }),
  );
  files.file(
    'parameters/analysis.json',
    canonicalJson({
      seed: manifest.analysis.seed,
      resamples: manifest.analysis.resamples,
      level: manifest.analysis.level,
      taus: manifest.analysis.taus,
      interval: `pointwise ${RELEASE_INTERVAL_METHOD.replace('_', ' ')}; quantile type 7 (linear), EIMC: inverted CDF (type 1)`,
      intervalMethod: RELEASE_INTERVAL_METHOD,
      resamplingUnit:
        'world (seed) with at least one complete block; one multiset per replicate for every system, load, history and checkpoint',
      completeBlocksOnly: true,
      noIntervalBelowCompleteWorlds: 2,
      exploratoryBelowWorlds: parameters.exploratoryBelowWorlds,
      caseExamplesPerVerdict: parameters.caseExamplesPerVerdict,
    }),
  );
  writeUsageCsv(records, files);
  for (const output of BUILT_IN_RELEASE_OUTPUTS)
    for (const [path, values] of output.scoreFiles(scores)) writeJsonl(files, path, values);
  files.file(`scores/${RUN_FILE_NAME.blocks}`, canonicalJson(scores.blocks));

  files.file('chart-data/chart-data.json', canonicalJson(chartDataFile(data)));
  // each experiment's fixed files (per-world CSV), through its output adapter
  for (const output of BUILT_IN_RELEASE_OUTPUTS)
    for (const [path, text] of output.files({ scores, data })) files.file(path, text);
  const figures = buildFigures(data);
  const rendered: { definition: (typeof figures)[number]; svg: string }[] = [];
  for (const definition of figures) {
    const svg = await renderFigureSvg(definition);
    rendered.push({ definition, svg });
    for (const [path, text] of figureFiles(definition, svg)) files.file(path, text);
  }
  // the per-world scorers' files and sections (docs/architecture.md, "Scoring and analysis")
  const modules = buildModuleRelease(records, scores);
  for (const [path, text] of modules.files) files.file(path, text);
  const moduleFigures = await buildModuleFigures(data, modules);
  for (const [path, text] of moduleFigures.files) files.file(path, text);
  const caseExamples = caseExamplesOf(traces, scores, BUILT_IN_RELEASE_OUTPUTS);
  files.file('chart-data/case-examples.json', canonicalJson(caseExamples));

  const experiments = experimentsIncluded(manifest, BUILT_IN_RELEASE_OUTPUTS);
  // capacity p and similarity h are profiles of the experiments whose output says so
  // (`profiles`): a run with none of them (only opt-in environments) keeps the profile tables (the README lists them) but has
  // no profile figure or section
  for (const [path, text] of profileFiles(profiles)) files.file(path, text);
  const profileSection = BUILT_IN_RELEASE_OUTPUTS.some(
    (output) => output.profiles && experiments[output.experimentId],
  )
    ? await profileFigureSection(data, profiles, rendered.length + 1)
    : { files: new Map<string, string>(), blocks: [] };
  for (const [path, text] of profileSection.files) files.file(path, text);
  const blocks = buildReportDocument({
    data,
    figures: rendered,
    caseExamples,
    // the profiles section sits in the fixed order (after behavior) and in the contents;
    // figures are renumbered in reading order
    extraSections: [...profileSection.blocks, ...moduleFigures.reportBlocks],
    experiments,
  });
  files.file('report.md', renderMarkdown(blocks));
  files.file('report.html', renderHtml(blocks, `CHI/CHIS pilot release ${data.run.runId}`));
  const cases = buildCasesDocument(data, caseExamples);
  files.file(REPORT_CASES_FILES.markdown, renderMarkdown(cases));
  files.file(REPORT_CASES_FILES.html, renderHtml(cases, `Case examples of run ${data.run.runId}`));
  files.file('README.md', releaseReadme(data, codeSection, records.requestLayout ?? '0.2'));

  return { chartData: data, scores };
}
