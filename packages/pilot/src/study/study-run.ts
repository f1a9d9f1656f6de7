import { appendFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readAttemptLog } from '@chi/run';
import { acquireRunLock } from '@chi/run/internal';
import type { ModelCatalog, StudyDeclaration, StudyFile, SystemSpec } from '@chi/spec';
import {
  RunFolderDamagedError,
  RunManifestSchema,
  type RunStudyLink,
  type StudySessionModel,
  type StudySessionRecord,
} from '@chi/spec';
import { RunStatusSchema } from '@chi/spec/internal';
import { UsageError } from '../cli/usage-error';
import type { PilotEventSink } from '../events';
import type { AnyExperiment } from '../experiments/experiment';
import { REGISTERED_EXPERIMENTS } from '../experiments/registry';
import { runPilot } from '../pilot';
import type { PilotSettings } from '../pilot-settings';
import { readJsonFile, runPaths, writeJsonFile } from '../run-folder/run-folder';
import { defaultOfflineSettings } from '../settings';
import { retentionMemoryExperiment } from './retention-experiment';
import { carriedState } from './study-chain';
import { chisEntries } from './study-chis';
import { writeStudyRelease } from './study-code';
import { readStudyFile } from './study-file';
import { studyPaths } from './study-folder';
import { type CarriedInstances, type InstanceCarry, instanceCarry } from './study-instances';
import { freezeStudy, readFrozenStudy, readStudyCatalog } from './study-manifest';
import { finishedSessions } from './study-records';
import { daysBetween, studyCalendar } from './study-schedule';
import { rebuildSessionNotebooks, writeStudyState } from './study-state';
import { declaredStudySystem } from './study-systems';

/** Options of {@link runStudySession}. */
export interface StudyRunOptions {
  readonly dir: string;
  /** The clock (`CHI_TEST_CLOCK` in tests). */
  readonly now: () => Date;
  /** `--now`: run the next session even before it is due, and record that it ran early. */
  readonly early: boolean;
  /** API keys by variable name (the process environment): read only, never written. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Injectable fetch of a live study's endpoint probe and catalog (tests). */
  readonly fetch?: typeof globalThis.fetch;
  /** Where a warning line goes (a live endpoint without a declared price). */
  readonly warn?: (line: string) => void;
  readonly onEvent?: PilotEventSink;
  readonly signal?: AbortSignal;
  readonly modelClock?: () => Date;
  /** Requests in flight (`--concurrency N`; default: the pilot's). */
  readonly concurrency?: number;
}

/** What `chi study run` did: its exit code and the lines it says. */
export interface StudyRunOutcome {
  readonly exitCode: number;
  readonly lines: readonly string[];
  readonly sessionIndex: number | null;
}

/**
 * The pilot settings of one session: the study's systems (as its manifest froze them, or as
 * declared for a scripted study), worlds and loads under its ceiling.
 */
export function sessionSettings(
  study: StudyDeclaration,
  link: RunStudyLink,
  systems: readonly SystemSpec[] = study.systems.map(declaredStudySystem),
): PilotSettings {
  return defaultOfflineSettings({
    systems,
    replicates: study.worldSeeds.replicates,
    rootSeed: study.worldSeeds.rootSeed,
    loads: [...study.experiments.memory.loads],
    controlsAtLoad: null,
    history: false,
    behavior: false,
    templates: ['memory'],
    ceilingUsd: link.ceilingUsd,
    requireSmoke: false,
    study: link,
  });
}

/** A session's ceiling: min(perSessionUsd, totalUsd - what the finished sessions charged), >= 0. */
export function sessionCeilingUsd(
  study: StudyDeclaration,
  records: readonly StudySessionRecord[],
): number {
  const spent = records.reduce((sum, record) => sum + record.chargedUsd, 0);
  return Math.max(0, Math.min(study.ceilings.perSessionUsd, study.ceilings.totalUsd - spent));
}

/** The model IDs and providers each system's replies came back with, from a session's log. */
async function returnedModels(runDir: string): Promise<StudySessionModel[]> {
  const paths = runPaths(runDir);
  const manifest = RunManifestSchema.parse(JSON.parse(readFileSync(paths.manifest, 'utf8')));
  const bySystem = new Map<string, { models: Set<string>; providers: Set<string> }>();
  for (const system of manifest.systems)
    bySystem.set(system.id, { models: new Set(), providers: new Set() });
  for (const record of await readAttemptLog(paths.attempts)) {
    const entry = bySystem.get(record.systemId);
    if (entry === undefined || record.result === null) continue;
    if (record.result.returnedModel !== null) entry.models.add(record.result.returnedModel);
    if (record.result.returnedProvider !== null)
      entry.providers.add(record.result.returnedProvider);
  }
  return [...bySystem].map(([systemId, entry]) => ({
    systemId,
    models: [...entry.models].sort(),
    providers: [...entry.providers].sort(),
  }));
}

/** Systems whose returned model IDs or providers differ from the previous session's (a possible provider-side change). */
export function modelChanges(
  models: readonly StudySessionModel[],
  previous: StudySessionRecord | undefined,
): string[] {
  if (previous === undefined) return [];
  const key = (entry: StudySessionModel) => JSON.stringify([entry.models, entry.providers]);
  return models
    .filter((entry) => {
      const before = previous.models.find((other) => other.systemId === entry.systemId);
      return before !== undefined && key(before) !== key(entry);
    })
    .map((entry) => entry.systemId);
}

/** Refuses a session run folder whose frozen study link is not `link`'s (exit 5). */
export function checkResumedLink(runDir: string, link: RunStudyLink): void {
  const manifest = RunManifestSchema.parse(
    JSON.parse(readFileSync(runPaths(runDir).manifest, 'utf8')),
  );
  const frozen = manifest.study;
  if (
    frozen === undefined ||
    frozen.studyManifestSha256 !== link.studyManifestSha256 ||
    frozen.sessionIndex !== link.sessionIndex ||
    frozen.previousStateSha256 !== link.previousStateSha256
  )
    throw new RunFolderDamagedError(
      runPaths(runDir).manifest,
      `its study link (manifest.study) does not match the study: expected session ${link.sessionIndex} continuing state ${link.previousStateSha256 ?? 'none'}`,
    );
}

/** Does nothing when nothing is due: the line says when the next session is. */
function waitingLine(index: number, dueAt: Date, now: Date): string {
  return `chi study: nothing due; session s${index} is due at ${dueAt.toISOString()} (in ${daysBetween(now, dueAt).toFixed(2)} days; --now runs it early)`;
}

/** The next session of a study, ready to run: its link, its carried notebooks, its experiments. */
export interface DueSession {
  readonly k: number;
  readonly study: StudyDeclaration;
  readonly studyManifestSha256: string;
  readonly records: readonly StudySessionRecord[];
  readonly link: RunStudyLink;
  readonly notebooks: Readonly<Record<string, string>>;
  /** What the previous session handed on of the systems that keep their own memory. */
  readonly instances: CarriedInstances;
  /** The systems every session runs (a live study's as its manifest froze them). */
  readonly systems: readonly SystemSpec[];
  /** The catalog prices a live study froze (OpenRouter models), or undefined. */
  readonly catalog: ModelCatalog | undefined;
  /** The experiment modules of the session (undefined: the pilot's registry, session 0). */
  readonly experiments: readonly AnyExperiment[] | undefined;
}

/** What the calendar says before a session runs: done, not due yet, or a session to run. */
type SessionStep =
  | { readonly kind: 'outcome'; readonly outcome: StudyRunOutcome }
  | { readonly kind: 'session'; readonly session: DueSession };

/** Nothing to run (exit 0), and the line saying why. */
function idle(line: string): SessionStep {
  return { kind: 'outcome', outcome: { exitCode: 0, lines: [line], sessionIndex: null } };
}

/** The experiment modules of session `k`: the registry at 0, the retention experiment after. */
export function sessionExperiments(
  k: number,
  notebooks: Readonly<Record<string, string>>,
): readonly AnyExperiment[] | undefined {
  return k === 0
    ? undefined
    : [
        retentionMemoryExperiment(notebooks),
        ...REGISTERED_EXPERIMENTS.filter((experiment) => experiment.id !== 'memory'),
      ];
}

/**
 * The next session of the study at `options.dir` on its calendar (docs/protocol.md, "Studies"):
 * complete or not due (an outcome to report), or the session with its link and carried state
 * (every link of the chain checked). `freeze` false refuses a study not frozen yet (a shard).
 */
export async function nextSession(
  options: Pick<StudyRunOptions, 'dir' | 'now' | 'early' | 'env' | 'fetch' | 'warn'>,
  file: StudyFile,
  freeze: boolean,
  started: (k: number) => boolean,
): Promise<SessionStep> {
  const paths = studyPaths(options.dir);
  const now = options.now();
  const existing = readFrozenStudy(paths);
  if (existing === null && !freeze)
    throw new UsageError(
      `chi study run --shard: ${paths.dir} is not frozen yet: the shards of a session must continue one frozen study; run chi study freeze ${paths.dir} once, then give every machine that folder`,
    );
  const records = finishedSessions(paths, file.schedule.length);
  const start = existing === null ? now : new Date(existing.manifest.frozenAt);
  const calendar = studyCalendar(
    file.schedule,
    records.map((record) => new Date(record.finishedAt)),
    now,
    start,
  );
  if (calendar.kind === 'complete')
    return idle(`chi study: all ${file.schedule.length} sessions are done`);
  const k = calendar.index;
  if (calendar.kind === 'waiting' && !options.early && !started(k))
    return idle(waitingLine(k, calendar.dueAt, now));
  const frozen = await freezeStudy(paths, file, now, {
    env: options.env ?? {},
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    ...(options.warn === undefined ? {} : { warn: options.warn }),
  });
  const study = frozen.manifest.study;
  const carried = carriedState(paths, records, frozen.sha256);
  const link: RunStudyLink = {
    studyId: study.studyId,
    studyManifestSha256: frozen.sha256,
    sessionIndex: k,
    previousStateSha256: carried?.sha256 ?? null,
    dueAt: calendar.dueAt.toISOString(),
    early: calendar.kind === 'waiting',
    ceilingUsd: sessionCeilingUsd(study, records),
  };
  const notebooks = carried?.state.notebooks ?? {};
  const experiments = sessionExperiments(k, notebooks);
  return {
    kind: 'session',
    session: {
      k,
      study,
      studyManifestSha256: frozen.sha256,
      records,
      link,
      notebooks,
      instances: carried?.state.instances ?? {},
      systems: frozen.manifest.systems ?? study.systems.map(declaredStudySystem),
      catalog: await readStudyCatalog(paths, frozen.manifest),
      experiments,
    },
  };
}

/** The `runPilot` options every session shares (env, clocks, progress, signal, experiments). */
export function commonPilotOptions(options: StudyRunOptions, session: DueSession) {
  return {
    env: options.env ?? {},
    now: options.now,
    ...(options.modelClock === undefined ? {} : { modelClock: options.modelClock }),
    ...(options.onEvent === undefined ? {} : { onEvent: options.onEvent }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    ...(session.experiments === undefined ? {} : { experiments: session.experiments }),
    ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
  };
}

/** Session `k`'s shard folders present in `sessions/` (their names start `s<k>.shard-`). */
export function sessionShardDirs(dir: string, k: number): string[] {
  const paths = studyPaths(dir);
  if (!existsSync(paths.sessions)) return [];
  const prefix = paths.sessionShardPrefix(k);
  return readdirSync(paths.sessions, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name.startsWith(prefix))
    .map((entry) => join(paths.sessions, entry.name))
    .sort();
}

/**
 * `chi study run DIR`: runs the next due session of a study as the run folder `sessions/s<k>`
 * (or resumes the one in progress), continuing every instance from the state the previous
 * session ended with (docs/protocol.md, "Studies"). Holds the study's lock throughout.
 */
export async function runStudySession(options: StudyRunOptions): Promise<StudyRunOutcome> {
  const paths = studyPaths(options.dir);
  const file = readStudyFile(paths.study);
  const lock = acquireRunLock(paths.dir, { command: 'chi study run', now: options.now });
  try {
    return await runLockedStudy(options, file);
  } finally {
    lock.release();
  }
}

async function runLockedStudy(options: StudyRunOptions, file: StudyFile): Promise<StudyRunOutcome> {
  const paths = studyPaths(options.dir);
  const started = (k: number) => existsSync(runPaths(paths.sessionRun(k)).manifest);
  const step = await nextSession(options, file, true, started);
  if (step.kind === 'outcome') return step.outcome;
  const { session } = step;
  const { k, link } = session;
  const runDir = paths.sessionRun(k);
  const resuming = started(k);
  const shards = sessionShardDirs(options.dir, k);
  if (!resuming && shards.length > 0)
    throw new UsageError(
      `chi study run: session s${k} is sharded (${shards.length} shard folder(s) in ${paths.sessions}); merge them with chi study merge ${paths.dir}`,
    );
  const carry = instanceCarry(session.systems, session.instances, session.studyManifestSha256);
  const common = { ...commonPilotOptions(options, session), prepareModels: carry.prepare };
  if (resuming) checkResumedLink(runDir, link);
  const outcome = resuming
    ? await runPilot({ ...common, resumeDir: runDir })
    : await runPilot({
        ...common,
        settings: sessionSettings(session.study, link, session.systems),
        ...(session.catalog === undefined ? {} : { catalog: session.catalog }),
        runDir,
      });
  return await recordSession(options.dir, session, link, outcome, carry);
}

// long-function: what a finished session records, in order (state, record, CHIS entries, report)
/**
 * Records a session whose run folder `sessions/s<k>` was run or merged (`outcome`): the state it
 * ended with, its session record, its study CHIS entries, and after the last session the report.
 * A session that did not finish records nothing (a later `chi study run` resumes it).
 */
export async function recordSession(
  dir: string,
  session: DueSession,
  link: RunStudyLink,
  outcome: { readonly exitCode: number; readonly releaseDir: string | null },
  carry?: InstanceCarry,
): Promise<StudyRunOutcome> {
  const paths = studyPaths(dir);
  const { k, records } = session;
  const runDir = paths.sessionRun(k);
  const status = await readJsonFile(runPaths(runDir).status, RunStatusSchema);
  if (status.state !== 'completed')
    return {
      exitCode: outcome.exitCode,
      lines: [
        `chi study: session s${k} did not finish (${status.state}); run chi study run again to resume it`,
      ],
      sessionIndex: k,
    };
  const instances = await carry?.handOn(runDir);
  const state = {
    kind: 'chi-study-state' as const,
    studyManifestSha256: session.studyManifestSha256,
    sessionIndex: k,
    previousStateSha256: link.previousStateSha256,
    notebooks: rebuildSessionNotebooks(runDir, session.notebooks),
    ...(instances === undefined ? {} : { instances }),
  };
  const stateSha256 = await writeStudyState(paths.sessionState(k), state);
  const models = await returnedModels(runDir);
  const finishedAt = status.finishedAt ?? status.updatedAt;
  const record: StudySessionRecord = {
    kind: 'chi-study-session',
    sessionIndex: k,
    runManifestSha256: status.manifestSha256,
    startedAt: status.startedAt,
    finishedAt,
    dueAt: link.dueAt,
    early: link.early,
    exitCode: outcome.exitCode,
    ceilingUsd: link.ceilingUsd,
    chargedUsd: status.spend.chargedUsd,
    stateSha256,
    models,
    modelChanges: modelChanges(models, records[records.length - 1]),
  };
  await writeJsonFile(paths.sessionRecord(k), record);
  const stateWrittenAt = new Date(records[0]?.finishedAt ?? finishedAt);
  const entries =
    outcome.releaseDir === null ? [] : chisEntries(outcome.releaseDir, record, stateWrittenAt);
  if (entries.length > 0)
    appendFileSync(paths.chis, entries.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
  const lines = [
    `chi study: session s${k} finished${link.early ? ' (run early: --now)' : ''}; state ${stateSha256.slice(0, 12)}`,
  ];
  if (record.modelChanges.length > 0)
    lines.push(
      `chi study: WARNING: returned model or provider changed since s${k - 1} for ${record.modelChanges.join(', ')} (a possible provider-side change; not pooled silently)`,
    );
  if (k === session.study.schedule.length - 1)
    lines.push(`chi study: last session done; report ${await writeStudyRelease(dir)}`);
  return { exitCode: outcome.exitCode, lines, sessionIndex: k };
}
