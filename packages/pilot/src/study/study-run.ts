import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readAttemptLog } from '@chi/run';
import { acquireRunLock } from '@chi/run/internal';
import type { StudyDeclaration } from '@chi/spec';
import {
  RunFolderDamagedError,
  RunManifestSchema,
  type RunStudyLink,
  type StudyChisEntry,
  type StudySessionModel,
  type StudySessionRecord,
} from '@chi/spec';
import { RunStatusSchema } from '@chi/spec/internal';
import type { PilotEventSink } from '../events';
import { REGISTERED_EXPERIMENTS } from '../experiments/registry';
import { runPilot } from '../pilot';
import { readJsonFile, runPaths, writeJsonFile } from '../run-folder';
import { scriptedSystemSpec } from '../scripted-systems';
import { defaultOfflineSettings, type PilotSettings } from '../settings';
import { retentionMemoryExperiment } from './retention-experiment';
import { carriedState, finishedSessions } from './study-chain';
import { readStudyFile } from './study-file';
import { studyPaths } from './study-folder';
import { freezeStudy, readFrozenStudy } from './study-manifest';
import { writeStudyReport } from './study-report';
import { daysBetween, studyCalendar } from './study-schedule';
import { rebuildSessionNotebooks, writeStudyState } from './study-state';

/** Options of {@link runStudySession}. */
export interface StudyRunOptions {
  readonly dir: string;
  /** The clock (`CHI_TEST_CLOCK` in tests). */
  readonly now: () => Date;
  /** `--now`: run the next session even before it is due, and record that it ran early. */
  readonly early: boolean;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly onEvent?: PilotEventSink;
  readonly signal?: AbortSignal;
  readonly modelClock?: () => Date;
}

/** What `chi study run` did: its exit code and the lines it says. */
export interface StudyRunOutcome {
  readonly exitCode: number;
  readonly lines: readonly string[];
  readonly sessionIndex: number | null;
}

/** The pilot settings of one session: the study's systems, worlds and loads under its ceiling. */
export function sessionSettings(study: StudyDeclaration, link: RunStudyLink): PilotSettings {
  return defaultOfflineSettings({
    systems: study.systems.map((name) => scriptedSystemSpec(name)),
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

/** One study CHIS entry per memory observation of a finished session's release. */
function chisEntries(
  releaseDir: string,
  record: StudySessionRecord,
  stateWrittenAt: Date,
): StudyChisEntry[] {
  const path = join(releaseDir, 'scores', 'memory.jsonl');
  if (!existsSync(path)) return [];
  const lines = readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '');
  return lines.flatMap((line) => {
    const observation = JSON.parse(line) as {
      systemId: string;
      worldSeed: number;
      load: number;
      condition: string;
      blockComplete: boolean;
      score: { qualityScore: number | null; factors: { r: number } | null } | null;
    };
    if (observation.condition !== 'notebook') return [];
    return [
      {
        kind: 'study-chis-entry' as const,
        sessionIndex: record.sessionIndex,
        wallClock: record.finishedAt,
        // one experience ingested (the encode of session 0); later sessions only ask
        eventCount: 1,
        delayDays: Math.max(0, daysBetween(stateWrittenAt, new Date(record.finishedAt))),
        systemId: observation.systemId,
        worldSeed: observation.worldSeed,
        load: observation.load,
        qualityScore: observation.score?.qualityScore ?? null,
        retrieval: observation.score?.factors?.r ?? null,
        blockComplete: observation.blockComplete,
      },
    ];
  });
}

function checkResumedLink(runDir: string, link: RunStudyLink): void {
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

// long-function: the steps of one session in order (calendar, freeze, carry, run, record)
async function runLockedStudy(
  options: StudyRunOptions,
  file: ReturnType<typeof readStudyFile>,
): Promise<StudyRunOutcome> {
  const paths = studyPaths(options.dir);
  const now = options.now();
  const existing = readFrozenStudy(paths);
  const records = finishedSessions(paths, file.schedule.length);
  const start = existing === null ? now : new Date(existing.manifest.frozenAt);
  const calendar = studyCalendar(
    file.schedule,
    records.map((record) => new Date(record.finishedAt)),
    now,
    start,
  );
  if (calendar.kind === 'complete')
    return {
      exitCode: 0,
      lines: [`chi study: all ${file.schedule.length} sessions are done`],
      sessionIndex: null,
    };
  const k = calendar.index;
  const runDir = paths.sessionRun(k);
  const resuming = existsSync(runPaths(runDir).manifest);
  if (calendar.kind === 'waiting' && !options.early && !resuming)
    return { exitCode: 0, lines: [waitingLine(k, calendar.dueAt, now)], sessionIndex: null };
  const frozen = await freezeStudy(paths, file, now);
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
  const experiments =
    k === 0
      ? undefined
      : [
          retentionMemoryExperiment(notebooks),
          ...REGISTERED_EXPERIMENTS.filter((experiment) => experiment.id !== 'memory'),
        ];
  const common = {
    env: options.env ?? {},
    now: options.now,
    ...(options.modelClock === undefined ? {} : { modelClock: options.modelClock }),
    ...(options.onEvent === undefined ? {} : { onEvent: options.onEvent }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(experiments === undefined ? {} : { experiments }),
  };
  if (resuming) checkResumedLink(runDir, link);
  const outcome = resuming
    ? await runPilot({ ...common, resumeDir: runDir })
    : await runPilot({ ...common, settings: sessionSettings(study, link), runDir });
  const status = await readJsonFile(runPaths(runDir).status, RunStatusSchema);
  if (status.state !== 'completed')
    return {
      exitCode: outcome.exitCode,
      lines: [
        `chi study: session s${k} did not finish (${status.state}); run chi study run again to resume it`,
      ],
      sessionIndex: k,
    };
  const state = {
    kind: 'chi-study-state' as const,
    studyManifestSha256: frozen.sha256,
    sessionIndex: k,
    previousStateSha256: link.previousStateSha256,
    notebooks: rebuildSessionNotebooks(runDir, notebooks),
  };
  const stateSha256 = await writeStudyState(paths.sessionState(k), state);
  const models = await returnedModels(runDir);
  const finishedAt = status.finishedAt ?? options.now().toISOString();
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
  if (k === study.schedule.length - 1)
    lines.push(`chi study: last session done; report ${await writeStudyReport(options.dir)}`);
  return { exitCode: outcome.exitCode, lines, sessionIndex: k };
}
