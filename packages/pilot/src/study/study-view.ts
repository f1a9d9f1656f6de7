import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  evidenceBanner,
  startViewServer,
  type ViewServer,
  type ViewStudy,
  type ViewStudyReport,
  type ViewStudyReportState,
  type ViewStudySession,
  type ViewStudySource,
} from '@chi/report/viewer';
import { RUN_FILE_NAME } from '@chi/run/internal';
import {
  type EvidenceClass,
  RunFolderDamagedError,
  type RunManifest,
  type RunStatus,
  type StudyFile,
  type StudySessionRecord,
} from '@chi/spec';
import { readStudyFile } from './study-file';
import { type StudyPaths, studyPaths } from './study-folder';
import { readFrozenStudy } from './study-manifest';
import { finishedSessions } from './study-records';
import { daysBetween, studyCalendar } from './study-schedule';

/**
 * `chi view STUDY_DIR`: the study page (docs/reading-the-report.md, "Viewing a study"). Only the
 * study folder's files are read, never recomputed: the schedule and the session records for the
 * time axis, completeness and spend, and `study-report.json` for the CHIS trajectory, so the page
 * shows the numbers `chi study report` wrote. The module graph stays small (`chi view` never
 * loads the study runner or the chart libraries; view-cli-imports.test.ts).
 */

/** Whether `dir` is a study folder: it holds a study file (`chi study init`). */
export function isStudyViewFolder(dir: string): boolean {
  return existsSync(studyPaths(dir).study);
}

/**
 * The session run folders of a study folder in session order (`sessions/s0`, `sessions/s1`, ...),
 * or null when `dir` is not a study folder (no study file).
 */
export function studySessionRuns(dir: string): string[] | null {
  const paths = studyPaths(dir);
  if (!isStudyViewFolder(dir)) return null;
  if (!existsSync(paths.sessions)) return [];
  return readdirSync(paths.sessions, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && /^s\d+$/.test(entry.name))
    .map((entry) => Number(entry.name.slice(1)))
    .sort((a, b) => a - b)
    .map((k) => paths.sessionRun(k))
    .filter((run) => existsSync(join(run, RUN_FILE_NAME.manifest)));
}

/** A JSON file of the study, or null when absent; a typed error naming it when it is not JSON. */
function readJson<T>(path: string): T | null {
  if (!existsSync(path)) return null;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch (error) {
    throw new RunFolderDamagedError(path, 'not JSON', { cause: error });
  }
}

/** What a session's run folder says: its manifest (study link, evidence) and status. */
interface SessionRun {
  readonly name: string;
  readonly manifest: RunManifest | null;
  readonly status: RunStatus | null;
}

function sessionRun(paths: StudyPaths, k: number): SessionRun | null {
  const dir = paths.sessionRun(k);
  const manifest = readJson<RunManifest>(join(dir, RUN_FILE_NAME.manifest));
  if (manifest === null) return null;
  return { name: `s${k}`, manifest, status: readJson<RunStatus>(join(dir, RUN_FILE_NAME.status)) };
}

/** Blocks complete and planned of a run's status (null without one). */
function blocksOf(status: RunStatus | null): Pick<ViewStudySession, 'blocksComplete' | 'blocks'> {
  if (status === null) return { blocksComplete: null, blocks: null };
  const { complete, incomplete, notStarted } = status.blocks;
  return { blocksComplete: complete, blocks: complete + incomplete + notStarted };
}

/** The facts every session row shares, from the schedule. */
interface Axis {
  readonly file: StudyFile;
  readonly origin: Date;
  readonly now: Date;
}

const day = (axis: Axis, iso: string) => daysBetween(axis.origin, new Date(iso));

/** A finished session: its record and its run's status. */
function doneSession(axis: Axis, record: StudySessionRecord, run: SessionRun | null) {
  return {
    sessionIndex: record.sessionIndex,
    state: 'done',
    afterPreviousDays: axis.file.schedule[record.sessionIndex]?.afterPreviousDays ?? 0,
    startedAt: record.startedAt,
    finishedAt: record.finishedAt,
    startDay: day(axis, record.startedAt),
    dueAt: record.dueAt,
    dueDay: day(axis, record.dueAt),
    dueProjected: false,
    early: record.early,
    ...blocksOf(run?.status ?? null),
    chargedUsd: record.chargedUsd,
    ceilingUsd: record.ceilingUsd,
    modelChanges: record.modelChanges,
    run: run?.name ?? null,
  } satisfies ViewStudySession;
}

/** The next session: in progress (its run folder begun), due or not due yet. */
function nextSession(
  axis: Axis,
  k: number,
  records: readonly StudySessionRecord[],
  run: SessionRun | null,
) {
  const link = run?.manifest?.study;
  const calendar = studyCalendar(
    axis.file.schedule,
    records.map((record) => new Date(record.finishedAt)),
    axis.now,
    axis.origin,
  );
  const dueAt =
    link?.dueAt ?? (calendar.kind === 'complete' ? axis.now : calendar.dueAt).toISOString();
  const startedAt =
    run === null ? null : (run.status?.startedAt ?? run.manifest?.createdAt ?? null);
  return {
    sessionIndex: k,
    state: run !== null ? 'in-progress' : calendar.kind === 'due' ? 'due' : 'not-due',
    afterPreviousDays: axis.file.schedule[k]?.afterPreviousDays ?? 0,
    startedAt,
    finishedAt: null,
    startDay: startedAt === null ? null : day(axis, startedAt),
    dueAt,
    dueDay: day(axis, dueAt),
    dueProjected: false,
    early: link?.early ?? false,
    ...blocksOf(run?.status ?? null),
    chargedUsd: run?.status?.spend.chargedUsd ?? null,
    ceilingUsd: link?.ceilingUsd ?? axis.file.ceilings.perSessionUsd,
    modelChanges: [],
    run: run?.name ?? null,
  } satisfies ViewStudySession;
}

/** A session after the next: due its delay after the one before, projected as finishing when due. */
function laterSession(axis: Axis, k: number, previous: ViewStudySession): ViewStudySession {
  const afterPreviousDays = axis.file.schedule[k]?.afterPreviousDays ?? 0;
  const previousEnd = Math.max(
    Date.parse(previous.dueAt),
    previous.startedAt === null ? 0 : Date.parse(previous.startedAt),
    previous.state === 'in-progress' ? axis.now.getTime() : 0,
  );
  const dueAt = new Date(previousEnd + Math.round(afterPreviousDays * 86_400_000)).toISOString();
  return {
    sessionIndex: k,
    state: 'not-due',
    afterPreviousDays,
    startedAt: null,
    finishedAt: null,
    startDay: null,
    dueAt,
    dueDay: day(axis, dueAt),
    dueProjected: true,
    early: false,
    blocksComplete: null,
    blocks: null,
    chargedUsd: null,
    ceilingUsd: axis.file.ceilings.perSessionUsd,
    modelChanges: [],
    run: null,
  };
}

/** The study report as the page reads it: its numbers, stale sessions, or missing. */
function reportState(
  paths: StudyPaths,
  records: readonly StudySessionRecord[],
  studyId: string,
  command: string,
): ViewStudyReportState {
  const report = readJson<ViewStudyReport & { kind?: unknown; studyId?: unknown }>(paths.report);
  if (report === null) return { state: 'missing', command };
  if (report.kind !== 'chi-study-report' || report.studyId !== studyId)
    throw new RunFolderDamagedError(paths.report, `not the study report of ${studyId}`);
  const covered = new Set(report.sessions.map((session) => session.sessionIndex));
  const stale = records.map((r) => r.sessionIndex).filter((k) => !covered.has(k));
  return { state: 'reported', report, stale, command };
}

/** Every evidence class the study's sessions (and its report) declare. */
function evidenceClasses(runs: readonly (SessionRun | null)[], report: ViewStudyReportState) {
  const classes: EvidenceClass[] = [];
  for (const run of runs)
    if (run?.manifest != null)
      classes.push(run.manifest.evidenceClass, ...run.manifest.systems.map((s) => s.evidenceClass));
  if (report.state === 'reported') {
    // `scripted_baseline`, or one class per system (a study of live models)
    const evidence = (report.report as { evidence?: unknown }).evidence;
    if (typeof evidence === 'string') classes.push(evidence as EvidenceClass);
    else if (typeof evidence === 'object' && evidence !== null)
      classes.push(...(Object.values(evidence) as EvidenceClass[]));
  }
  return classes;
}

/**
 * A study system's name as the page lists it: a scripted system's name, or a live system's ID
 * (else its model without the provider allowlist).
 */
function systemName(system: unknown): string {
  if (typeof system === 'string') return system;
  const live = system as { readonly id?: string; readonly model?: string };
  return live.id ?? live.model?.split('@')[0] ?? JSON.stringify(system);
}

/**
 * The study page's data (`/api/study`) of a study folder at `now`: every scheduled session placed
 * on a time axis of days since s0 started, with its completeness, spend and model-ID flag, and the
 * CHIS trajectory as `study-report.json` holds it. `command` is how the page tells the reader to
 * write a missing report (`chi study report DIR`).
 *
 * @throws RunFolderDamagedError naming a session record, run file or report that cannot be read
 */
export function studyViewData(
  dir: string,
  now: Date,
  command = `chi study report ${dir}`,
): ViewStudy {
  const paths = studyPaths(dir);
  const file = readStudyFile(paths.study);
  const frozen = readFrozenStudy(paths);
  const records = finishedSessions(paths, file.schedule.length);
  const runs = file.schedule.map((_, k) => sessionRun(paths, k));
  const s0Start = records[0]?.startedAt ?? runs[0]?.status?.startedAt ?? frozen?.manifest.frozenAt;
  const axis: Axis = { file, origin: s0Start === undefined ? now : new Date(s0Start), now };
  const sessions: ViewStudySession[] = [];
  for (let k = 0; k < file.schedule.length; k += 1) {
    const record = records[k];
    const previous = sessions[k - 1];
    if (record !== undefined) sessions.push(doneSession(axis, record, runs[k] ?? null));
    else if (k === records.length) sessions.push(nextSession(axis, k, records, runs[k] ?? null));
    else if (previous !== undefined) sessions.push(laterSession(axis, k, previous));
  }
  const report = reportState(paths, records, file.studyId, command);
  return {
    kind: 'chi-view-study',
    studyId: file.studyId,
    studyManifestSha256: frozen?.sha256 ?? null,
    frozenAt: frozen?.manifest.frozenAt ?? null,
    now: now.toISOString(),
    origin: axis.origin.toISOString(),
    banner: evidenceBanner(evidenceClasses(runs, report)),
    systems: file.systems.map(systemName),
    ceilings: file.ceilings,
    spentUsd: records.reduce((sum, record) => sum + record.chargedUsd, 0),
    primary: { session: file.primary.session, load: file.primary.checkpoint.load },
    sessions,
    report,
  };
}

/** The study as `chi view` serves and bundles it: the page's data at the clock's now, its runs. */
export function studyViewSource(dir: string, now: () => Date, command?: string): ViewStudySource {
  return {
    study: async () => studyViewData(dir, now(), command),
    runs: () => studySessionRuns(dir) ?? [],
  };
}

/**
 * `chi view STUDY_DIR`: the study page at `/` (the schedule on a time axis, each session's
 * completeness and spend, the CHIS trajectory from the study report; its data at `/api/study`),
 * each session browsable down to a probe under `/run/s<k>/`, and any two compared side by side,
 * paired by world.
 */
export async function startStudyView(
  dir: string,
  now: () => Date,
  port: number,
  command?: string,
): Promise<ViewServer> {
  return await startViewServer({ dir, study: studyViewSource(dir, now, command), port });
}
