import { existsSync, readFileSync } from 'node:fs';
import type { ViewStudyRow } from '@chi/report';
import { fixedCell, fixedNumber } from '@chi/report/internal';
import { canonicalJson } from '@chi/run';
import {
  type EvidenceClass,
  RunFolderDamagedError,
  type StudyChisEntry,
  StudyChisEntrySchema,
  type StudyFile,
  type SystemSpec,
} from '@chi/spec';
import { RunStatusSchema } from '@chi/spec/internal';
import { type BootstrapEstimate, clusterBootstrap } from '@chi/stats';
import { parseJsonFileText, runPaths, writeFileAtomic } from '../run-folder/run-folder';
import { studyCohortDirs } from './study-cohort';
import { readStudyFile } from './study-file';
import { studyPaths } from './study-folder';
import { readFrozenStudy } from './study-manifest';
import { finishedSessions } from './study-records';
import { daysBetween } from './study-schedule';
import { declaredStudySystem, studySystemIds } from './study-systems';

/** The fixed analysis seed and resamples of a study report (as the pilot's defaults). */
const ANALYSIS_SEED = 20260901;
const RESAMPLES = 2000;

/** The study report (`study-report.json`). */
export interface StudyReport {
  readonly kind: 'chi-study-report';
  readonly studyId: string;
  readonly studyManifestSha256: string | null;
  /**
   * What the study's results are evidence of: `scripted_baseline` when every system is a scripted
   * system (in process or served by `chi serve`), otherwise each system's class by ID.
   */
  readonly evidence: 'scripted_baseline' | Readonly<Record<string, EvidenceClass>>;
  readonly primary: { readonly session: number; readonly load: number };
  /** The sessions on the study's time axis: when, how complete, what they spent. */
  readonly sessions: readonly StudySessionSummary[];
  readonly rows: readonly ViewStudyRow[];
  /** Sessions whose returned model IDs or providers changed: never pooled silently. */
  readonly modelChanges: readonly {
    readonly sessionIndex: number;
    readonly systems: readonly string[];
  }[];
  /**
   * Systems added after the first session (`chi study add`), each cohort a study of its own from
   * its own day 0 (absent when the study gained none).
   */
  readonly cohorts?: readonly StudyCohortSummary[];
  /** Each added system against each original one, paired by world at the same session index. */
  readonly cohortComparisons?: readonly StudyCohortComparison[];
  /**
   * How each system that keeps its own memory (memory policy `system`) is carried from session to
   * session: `exported` (its instances' states, hash-chained in the study's state) or `identity`
   * (the state lives in the system; the study carries its instance IDs only). Absent when none.
   */
  readonly memoryCarry?: readonly {
    readonly systemId: string;
    readonly carry: 'exported' | 'identity';
  }[];
}

/** The systems of a study as its sessions run them (frozen for a live study). */
function studySystems(dir: string, file: StudyFile): readonly SystemSpec[] {
  return (
    readFrozenStudy(studyPaths(dir))?.manifest.systems ?? file.systems.map(declaredStudySystem)
  );
}

/** The report's evidence and memory-carry fields of a study's systems. */
function systemSections(
  systems: readonly SystemSpec[],
): Pick<StudyReport, 'evidence' | 'memoryCarry'> {
  const scripted = systems.every((system) => system.evidenceClass === 'scripted_baseline');
  const keeping = systems.filter((system) => system.memory === 'system');
  return {
    evidence: scripted
      ? 'scripted_baseline'
      : Object.fromEntries(systems.map((system) => [system.id, system.evidenceClass])),
    ...(keeping.length === 0
      ? {}
      : {
          memoryCarry: keeping.map((system) => ({
            systemId: system.id,
            carry:
              system.instanceControl === undefined ? ('identity' as const) : ('exported' as const),
          })),
        }),
  };
}

/** One finished session on the study's time axis. */
export interface StudySessionSummary {
  readonly sessionIndex: number;
  /** Days from the study's day 0 (when it was frozen) to the session's finish. */
  readonly day: number;
  readonly dueAt: string;
  readonly finishedAt: string;
  readonly early: boolean;
  readonly blocksComplete: number;
  readonly blocks: number;
  readonly chargedUsd: number;
  readonly ceilingUsd: number;
}

/** The finished sessions on the time axis, with completeness from each run folder's status. */
function sessionSummaries(
  paths: ReturnType<typeof studyPaths>,
  records: ReturnType<typeof finishedSessions>,
): StudySessionSummary[] {
  const dayZero = readFrozenStudy(paths)?.manifest.frozenAt ?? records[0]?.startedAt;
  return records.map((record) => {
    const statusPath = runPaths(paths.sessionRun(record.sessionIndex)).status;
    const status = parseJsonFileText(statusPath, readStudyFileText(statusPath), RunStatusSchema);
    const { complete, incomplete, notStarted } = status.blocks;
    return {
      sessionIndex: record.sessionIndex,
      day: dayZero === undefined ? 0 : daysBetween(new Date(dayZero), new Date(record.finishedAt)),
      dueAt: record.dueAt,
      finishedAt: record.finishedAt,
      early: record.early,
      blocksComplete: complete,
      blocks: complete + incomplete + notStarted,
      chargedUsd: record.chargedUsd,
      ceilingUsd: record.ceilingUsd,
    };
  });
}

/** A later cohort of a study, as its report names it. */
export interface StudyCohortSummary {
  readonly studyId: string;
  readonly studyManifestSha256: string | null;
  readonly systems: readonly string[];
  readonly sessionsDone: number;
}

/** An added system's Q_M minus an original system's, paired by world, at one session index. */
export interface StudyCohortComparison {
  readonly cohortStudyId: string;
  readonly systemId: string;
  readonly versus: string;
  readonly load: number;
  readonly sessionIndex: number;
  readonly difference: BootstrapEstimate;
  /** Worlds complete for both systems at this session index. */
  readonly worlds: number;
}

/** Q_M of two systems per world at session `k` (worlds complete for both), as [a, b] clusters. */
function pairedByWorld(
  a: readonly StudyChisEntry[],
  b: readonly StudyChisEntry[],
  k: number,
): number[][] {
  const at = (entries: readonly StudyChisEntry[]) =>
    new Map(
      entries
        .filter((e) => e.sessionIndex === k && e.blockComplete && e.qualityScore !== null)
        .map((e) => [e.worldSeed, e.qualityScore as number]),
    );
  const left = at(a);
  const right = at(b);
  return [...left.keys()]
    .filter((seed) => right.has(seed))
    .sort((x, y) => x - y)
    .map((seed) => [left.get(seed) as number, right.get(seed) as number]);
}

/** The cohorts of a study and each added system against each original one (paired by world). */
function cohortSections(
  dir: string,
  entries: readonly StudyChisEntry[],
  loads: readonly number[],
): Pick<StudyReport, 'cohorts' | 'cohortComparisons'> {
  const cohortDirs = studyCohortDirs(dir);
  if (cohortDirs.length === 0) return {};
  const cohorts: StudyCohortSummary[] = [];
  const comparisons: StudyCohortComparison[] = [];
  const originals = [...new Set(entries.map((entry) => entry.systemId))].sort();
  for (const cohortDir of cohortDirs) {
    const paths = studyPaths(cohortDir);
    const file = readStudyFile(paths.study);
    const records = finishedSessions(paths, file.schedule.length);
    const added = readEntries(paths.chis);
    cohorts.push({
      studyId: file.studyId,
      studyManifestSha256: readFrozenStudy(paths)?.sha256 ?? null,
      systems: studySystemIds(file),
      sessionsDone: records.length,
    });
    for (const systemId of studySystemIds(file))
      for (const versus of originals)
        for (const load of loads)
          for (const record of records) {
            const own = (list: readonly StudyChisEntry[], id: string) =>
              list.filter((e) => e.systemId === id && e.load === load);
            const clusters = pairedByWorld(
              own(entries, versus),
              own(added, systemId),
              record.sessionIndex,
            );
            comparisons.push({
              cohortStudyId: file.studyId,
              systemId,
              versus,
              load,
              sessionIndex: record.sessionIndex,
              difference: bootstrap(clusters, (sample) =>
                mean(sample.map((world) => (world[1] as number) - (world[0] as number))),
              ),
              worlds: clusters.length,
            });
          }
  }
  return { cohorts, cohortComparisons: comparisons };
}

/** A file of the study folder that must be there, or a damaged study (exit 5) naming it. */
function readStudyFileText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new RunFolderDamagedError(path, `it is unreadable (${(error as Error).message})`, {
      cause: error,
    });
  }
}

/** The study's CHIS log; a line that is not an entry is a damaged study (exit 5), named. */
function readEntries(path: string): StudyChisEntry[] {
  if (!existsSync(path)) return [];
  return readStudyFileText(path)
    .split('\n')
    .flatMap((line, index) =>
      line === ''
        ? []
        : [parseJsonFileText(`${path} line ${index + 1}`, line, StudyChisEntrySchema)],
    );
}

const mean = (values: readonly number[]) =>
  values.reduce((sum, value) => sum + value, 0) / values.length;

/** Q_M per world and session for one system and load, keeping worlds complete in `sessions`. */
function worldSeries(
  entries: readonly StudyChisEntry[],
  sessions: readonly number[],
  value: (entry: StudyChisEntry) => number | null = (entry) => entry.qualityScore,
): number[][] {
  const byWorld = new Map<number, Map<number, number>>();
  for (const entry of entries) {
    const score = value(entry);
    if (!entry.blockComplete || score === null) continue;
    const world = byWorld.get(entry.worldSeed) ?? new Map<number, number>();
    world.set(entry.sessionIndex, score);
    byWorld.set(entry.worldSeed, world);
  }
  return [...byWorld]
    .sort(([a], [b]) => a - b)
    .filter(([, scores]) => sessions.every((k) => scores.has(k)))
    .map(([, scores]) => sessions.map((k) => scores.get(k) as number));
}

function bootstrap(
  clusters: readonly number[][],
  statistic: (sample: readonly number[][]) => number | null,
): BootstrapEstimate {
  return clusterBootstrap({
    clusters: clusters.length === 0 ? [[Number.NaN]] : [...clusters],
    statistic: (sample: readonly number[][]) => (clusters.length === 0 ? null : statistic(sample)),
    seed: ANALYSIS_SEED,
    resamples: RESAMPLES,
  });
}

function rowFor(
  entries: readonly StudyChisEntry[],
  systemId: string,
  load: number,
  k: number,
): ViewStudyRow {
  const own = entries.filter((entry) => entry.systemId === systemId && entry.load === load);
  const sessions = k === 0 ? [0] : [0, k - 1, k];
  const clusters = worldSeries(own, sessions);
  const retrieval = worldSeries(own, sessions, (entry) => entry.retrieval);
  const at = (index: number) => (sample: readonly number[][]) =>
    mean(sample.map((world) => world[index] as number));
  const last = sessions.length - 1;
  const delays = own.filter((entry) => entry.sessionIndex === k).map((entry) => entry.delayDays);
  return {
    systemId,
    load,
    sessionIndex: k,
    delayDays: delays.length === 0 ? 0 : mean(delays),
    qualityScore: bootstrap(clusters, at(last)),
    retention: bootstrap(clusters, (sample) => {
      const base = at(0)(sample);
      return base === 0 ? null : at(last)(sample) / base;
    }),
    retrievalRetention: bootstrap(retrieval, (sample) => {
      const base = at(0)(sample);
      return base === 0 ? null : at(last)(sample) / base;
    }),
    drift: k === 0 ? null : bootstrap(clusters, (sample) => at(last)(sample) - at(1)(sample)),
    worlds: clusters.length,
  };
}

/** The study report of a study folder (pure apart from reading the folder). */
export function studyReport(dir: string): StudyReport {
  const paths = studyPaths(dir);
  const file = readStudyFile(paths.study);
  const records = finishedSessions(paths, file.schedule.length);
  const entries = readEntries(paths.chis);
  const rows: ViewStudyRow[] = [];
  for (const systemId of [...new Set(entries.map((entry) => entry.systemId))].sort())
    for (const load of file.experiments.memory.loads)
      for (const record of records) rows.push(rowFor(entries, systemId, load, record.sessionIndex));
  return {
    kind: 'chi-study-report',
    studyId: file.studyId,
    studyManifestSha256: readFrozenStudy(paths)?.sha256 ?? null,
    ...systemSections(studySystems(dir, file)),
    primary: { session: file.primary.session, load: file.primary.checkpoint.load },
    sessions: sessionSummaries(paths, records),
    rows,
    modelChanges: records
      .filter((record) => record.modelChanges.length > 0)
      .map((record) => ({ sessionIndex: record.sessionIndex, systems: record.modelChanges })),
    ...cohortSections(dir, entries, file.experiments.memory.loads),
  };
}

/** The headline evidence line of the report. */
function evidenceLine(report: StudyReport): string {
  if (report.evidence === 'scripted_baseline')
    return 'SCRIPTED BASELINE: scripted systems, not measurements of a model.';
  return `EVIDENCE by system: ${Object.entries(report.evidence)
    .map(
      ([systemId, evidence]) =>
        `${systemId} ${evidence === 'scripted_baseline' ? 'SCRIPTED BASELINE' : evidence}`,
    )
    .join('; ')}.`;
}

/** The memory-carry section: how each system that keeps its own memory continues. */
function memoryCarryLines(report: StudyReport): string[] {
  if (report.memoryCarry === undefined) return [];
  return [
    '',
    '## Systems that keep their own memory',
    '',
    'Each keeps its instance IDs (rooted in the study manifest hash) from session to session; the harness sends it no notes.',
    '',
    ...report.memoryCarry.map((entry) =>
      entry.carry === 'exported'
        ? `- ${entry.systemId}: state exported after each session and stored in the session's hash-chained state; imported before the next session's first request.`
        : `- ${entry.systemId}: the state lives in the system (it offers no instance-control extension); the study carries its instance identity only, and cannot check or restore what the system kept.`,
    ),
  ];
}

/** One line per system and load: its world-mean Q_M at each session, by day. */
function trajectoryLines(report: StudyReport): string[] {
  const day = new Map(report.sessions.map((session) => [session.sessionIndex, session.day]));
  const keys = [...new Set(report.rows.map((row) => `${row.systemId}\u0000${row.load}`))];
  return keys.map((key) => {
    const [systemId, load] = key.split('\u0000') as [string, string];
    const points = report.rows
      .filter((row) => row.systemId === systemId && String(row.load) === load)
      .map(
        (row) =>
          `s${row.sessionIndex} (day ${(day.get(row.sessionIndex) ?? 0).toFixed(2)}) ${fixedNumber(row.qualityScore.estimate)}`,
      );
    return `- ${systemId}, load ${load}: ${points.join(' → ')}`;
  });
}

/** The cohorts section of the Markdown report (none when the study gained no system). */
function cohortMarkdown(report: StudyReport): string[] {
  if (report.cohorts === undefined || report.cohortComparisons === undefined) return [];
  return [
    '',
    '## Systems added later (each from its own day 0, paired by world)',
    '',
    ...report.cohorts.map(
      (cohort) =>
        `- ${cohort.studyId}: ${cohort.systems.join(', ')}; ${cohort.sessionsDone} session(s) done`,
    ),
    '',
    '| added system | versus | load | session | Q_M difference (added - versus) | worlds |',
    '| --- | --- | --- | --- | --- | --- |',
    ...report.cohortComparisons.map(
      (row) =>
        `| ${row.systemId} | ${row.versus} | ${row.load} | s${row.sessionIndex} | ${fixedCell(row.difference)} | ${row.worlds} |`,
    ),
  ];
}

/** The study report as Markdown. */
export function studyReportMarkdown(report: StudyReport): string {
  const lines = [
    `# Study ${report.studyId}`,
    '',
    evidenceLine(report),
    '',
    `Primary (preregistered): retention at session s${report.primary.session}, memory load ${report.primary.load}. Intervals: 95% cluster-bootstrap percentile over worlds (${RESAMPLES} resamples, seed ${ANALYSIS_SEED}), pointwise.`,
    '',
    '## Sessions (time axis: days from day 0, when the study was frozen)',
    '',
    '| session | day | due | finished | early | complete blocks | spend (USD) of ceiling |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...report.sessions.map(
      (row) =>
        `| s${row.sessionIndex} | ${row.day.toFixed(2)} | ${row.dueAt} | ${row.finishedAt} | ${row.early ? 'yes (--now)' : 'no'} | ${row.blocksComplete} of ${row.blocks} | ${row.chargedUsd.toFixed(4)} of ${row.ceilingUsd.toFixed(4)} |`,
    ),
    '',
    '## CHIS trajectory across sessions (world-mean Q_M by day)',
    '',
    ...trajectoryLines(report),
    '',
    '| system | load | session | delay (days) | Q_M | retention vs s0 | r retention vs s0 | drift vs previous | worlds |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...report.rows.map(
      (row) =>
        `| ${row.systemId} | ${row.load} | s${row.sessionIndex} | ${row.delayDays.toFixed(2)} | ${fixedCell(row.qualityScore)} | ${fixedCell(row.retention)} | ${fixedCell(row.retrievalRetention)} | ${fixedCell(row.drift)} | ${row.worlds} |`,
    ),
    '',
    report.modelChanges.length === 0
      ? 'Returned model IDs and providers: unchanged across sessions.'
      : `POSSIBLE PROVIDER-SIDE CHANGE: ${report.modelChanges.map((change) => `s${change.sessionIndex} (${change.systems.join(', ')})`).join('; ')}: returned model IDs or providers differ from the previous session.`,
    ...cohortMarkdown(report),
    ...memoryCarryLines(report),
  ];
  return `${lines.join('\n')}\n`;
}

/** Writes `study-report.json` and `study-report.md`; returns the Markdown path. */
export async function writeStudyReport(dir: string): Promise<string> {
  const paths = studyPaths(dir);
  const report = studyReport(dir);
  await writeFileAtomic(paths.report, `${canonicalJson(report)}\n`);
  await writeFileAtomic(paths.reportMarkdown, studyReportMarkdown(report));
  return paths.reportMarkdown;
}
