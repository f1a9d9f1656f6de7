import { existsSync, readFileSync } from 'node:fs';
import { acquireRunLock } from '@chi/run/internal';
import { RunFolderDamagedError, RunManifestSchema, type RunStudyLink } from '@chi/spec';
import { RunStatusSchema } from '@chi/spec/internal';
import { UsageError } from '../cli/usage-error';
import { finishRun, runPilot } from '../pilot';
import { readJsonFile, runPaths } from '../run-folder/run-folder';
import { mergeShards } from '../shard/merge-shards';
import { type ShardSpec, shardLabel } from '../shard/shard-spec';
import { readStudyFile } from './study-file';
import { studyPaths } from './study-folder';
import {
  checkResumedLink,
  commonPilotOptions,
  nextSession,
  recordSession,
  type StudyRunOptions,
  type StudyRunOutcome,
  sessionSettings,
  sessionShardDirs,
} from './study-run';

/**
 * `chi study run DIR --shard i/n` (docs/protocol.md, "Studies", "Shards of a session"): runs shard
 * `i` of `n` of the next due session in its own run folder `sessions/s<k>.shard-<i>-of-<n>`: the
 * whole (world seed, system) units `chi pilot --shard i/n` would run of the session's plan, under
 * its preregistered share of the session's ceiling (frozen in `manifest.shard`), with no release
 * (`chi study merge DIR` writes the session's). The manifest's creation time is the session's due
 * time, so shards run on different machines at different times freeze one manifest. Resumes the
 * shard's folder when it exists; nothing due is exit 0 and the line saying when. Holds no study
 * lock (shards of one session may run side by side in a shared folder); the shard folder's own
 * lock keeps two runners of the same shard apart (exit 6).
 */
export async function runStudyShard(
  options: StudyRunOptions,
  shard: ShardSpec,
): Promise<StudyRunOutcome> {
  const paths = studyPaths(options.dir);
  const file = readStudyFile(paths.study);
  const shardDir = (k: number) => paths.sessionShardRun(k, shard);
  const started = (k: number) => existsSync(runPaths(shardDir(k)).manifest);
  const step = await nextSession(options, file, false, started);
  if (step.kind === 'outcome') return step.outcome;
  const { session } = step;
  const keeping = session.systems.filter((system) => system.memory === 'system');
  if (keeping.length > 0)
    throw new UsageError(
      `chi study run --shard: ${keeping.map((system) => system.id).join(', ')} keep their own memory (memory policy system): their state is handed on from one runner to the next session, so their sessions run unsharded (chi study run ${paths.dir})`,
    );
  const runDir = shardDir(session.k);
  if (existsSync(runPaths(paths.sessionRun(session.k)).manifest))
    throw new UsageError(
      `chi study run --shard: session s${session.k} already has its run folder ${paths.sessionRun(session.k)} (run unsharded or merged); a shard of it would run its blocks twice`,
    );
  const { link } = session;
  const common = commonPilotOptions(options, session);
  const resuming = started(session.k);
  if (resuming) checkResumedLink(runDir, link);
  const outcome = resuming
    ? await runPilot({ ...common, resumeDir: runDir, release: false })
    : await runPilot({
        ...common,
        settings: sessionSettings(session.study, link, session.systems),
        ...(session.catalog === undefined ? {} : { catalog: session.catalog }),
        runDir,
        shard,
        createdAt: new Date(link.dueAt),
        release: false,
      });
  const status = await readJsonFile(runPaths(runDir).status, RunStatusSchema);
  const label = shardLabel(shard);
  return {
    exitCode: outcome.exitCode,
    lines: [
      status.state === 'completed'
        ? `chi study: shard ${label} of session s${session.k} finished in ${runDir}; when every shard has, gather their folders in ${paths.sessions} and run chi study merge ${paths.dir}`
        : `chi study: shard ${label} of session s${session.k} did not finish (${status.state}); run the same command again to resume it`,
    ],
    sessionIndex: session.k,
  };
}

/** The study link the merged manifest froze (every shard's was checked against the session). */
function mergedLink(runDir: string): RunStudyLink {
  const manifest = RunManifestSchema.parse(
    JSON.parse(readFileSync(runPaths(runDir).manifest, 'utf8')),
  );
  if (manifest.study === undefined)
    throw new RunFolderDamagedError(runPaths(runDir).manifest, 'it has no study link');
  return manifest.study;
}

/**
 * `chi study merge DIR`: merges the shard folders of the next session (`sessions/s<k>.shard-*`)
 * into its run folder `sessions/s<k>` with `chi merge`'s checks (one frozen manifest, the plan
 * covered exactly once: a missing or duplicated shard is refused naming it, exit 2), writes the
 * session's release, whose derived files equal an unsharded session's byte for byte, and records
 * the session as `chi study run` would (state, record, CHIS entries, report after the last).
 * Holds the study's lock.
 */
export async function mergeStudySession(
  options: Pick<StudyRunOptions, 'dir' | 'now' | 'onEvent'>,
): Promise<StudyRunOutcome> {
  const paths = studyPaths(options.dir);
  const file = readStudyFile(paths.study);
  const lock = acquireRunLock(paths.dir, { command: 'chi study merge', now: options.now });
  try {
    // the shards decided when the session ran: a merge is never "not due"
    const step = await nextSession({ ...options, early: true }, file, false, () => true);
    if (step.kind === 'outcome') return step.outcome;
    const { session } = step;
    const runDir = paths.sessionRun(session.k);
    if (existsSync(runPaths(runDir).manifest))
      throw new UsageError(
        `chi study merge: session s${session.k} already has its run folder ${runDir}; nothing to merge (chi study run resumes it)`,
      );
    const shardDirs = sessionShardDirs(options.dir, session.k);
    if (shardDirs.length === 0)
      throw new UsageError(
        `chi study merge: no shard folder of session s${session.k} (${paths.sessionShardPrefix(session.k)}*) in ${paths.sessions}; run them with chi study run ${paths.dir} --shard i/n`,
      );
    // each shard continues this study's chain (its early flag and ceiling are checked alike by
    // the merge: every shard's manifest must be the same but for its shard field)
    for (const shardDir of shardDirs)
      if (existsSync(runPaths(shardDir).manifest)) checkResumedLink(shardDir, session.link);
    const merged = await mergeShards({
      shardDirs,
      outDir: runDir,
      ...(session.experiments === undefined ? {} : { experiments: session.experiments }),
    });
    const link = mergedLink(runDir);
    const releaseDir = await finishRun(runDir, {
      ...(options.onEvent === undefined ? {} : { onEvent: options.onEvent }),
    });
    return await recordSession(options.dir, session, link, {
      exitCode: merged.exitCode,
      releaseDir,
    });
  } finally {
    lock.release();
  }
}
