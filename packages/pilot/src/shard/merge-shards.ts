import { cp, mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { computeBlockStatuses, outcomesFromAttemptLog } from '@chi/run';
import {
  acquireRunLock,
  RUN_FILE_NAME,
  RUN_FOLDER_DIRECTORY,
  type RunLock,
  writeAttemptAnchor,
} from '@chi/run/internal';
import {
  type AttemptRecord,
  type BlockStatus,
  RunFolderDamagedError,
  type RunPlan,
  type RunStatus,
} from '@chi/spec';
import { RunPlanSchema, RunStatusSchema } from '@chi/spec/internal';
import { EXIT_CODES } from '../cli/exit-codes';
import type { AnyExperiment } from '../experiments/experiment';
import { buildRunPlan } from '../plan/plan';
import { planSha256 } from '../run-folder/manifest';
import { assertEmptyOrMissing, runIdFor } from '../run-folder/run-create';
import { readJsonFile, runPaths, writeFileAtomic, writeJsonFile } from '../run-folder/run-folder';
import { assertRunIntact } from '../runner/run-open';
import { mergeAttemptLogs, mergeJsonlFiles, planOrdinals } from './merge-logs';
import { checkShardSet, readShardFolder, type ShardFolder, type ShardSet } from './shard-folders';
import { shardPlan } from './shard-plan';

/** What {@link mergeShards} wrote. */
export interface MergedRun {
  /** The merged run folder (the unsharded run's manifest and plan, every shard's records). */
  readonly runDir: string;
  readonly status: RunStatus;
  /** 0 when every block of the whole plan is complete, 3 otherwise (as `chi pilot`). */
  readonly exitCode: number;
}

/**
 * The whole plan, rebuilt from the unsharded manifest and checked against its `planSha256`, and
 * every shard's `plan.json` checked to be exactly its part: together they cover the plan once.
 */
async function checkedPlans(
  set: ShardSet,
  experiments?: readonly AnyExperiment[],
): Promise<RunPlan> {
  const plan = buildRunPlan(set.whole.manifest, experiments);
  if (planSha256(plan) !== set.whole.manifest.planSha256)
    throw new RunFolderDamagedError(
      join(set.shards[0]?.dir ?? '', RUN_FILE_NAME.manifest),
      'the plan rebuilt from the manifest does not match its planSha256 (a run with experiments added from outside the pilot cannot be merged by chi merge)',
    );
  for (const folder of set.shards) {
    const part = await readJsonFile(runPaths(folder.dir).plan, RunPlanSchema);
    const expected = planSha256(shardPlan(plan, folder.shard));
    if (planSha256(part) !== expected || folder.shard.planSha256 !== expected)
      throw new RunFolderDamagedError(
        runPaths(folder.dir).plan,
        `it is not shard ${folder.shard.index}/${folder.shard.count}'s part of the plan`,
      );
  }
  return plan;
}

/** The merged folder's status, from the shards' and the merged outcomes. */
function mergedStatus(
  set: ShardSet,
  statuses: readonly RunStatus[],
  blocks: readonly BlockStatus[],
  merged: { plan: RunPlan; records: readonly AttemptRecord[]; head: RunStatus['attemptLog'] },
): RunStatus {
  const outcomes = [...outcomesFromAttemptLog(merged.records).values()];
  const resolved = outcomes.filter((o) => o.kind === 'resolved');
  const abandoned = outcomes.filter((o) => o.kind === 'abandoned').length;
  const complete = blocks.filter((block) => block.status === 'complete').length;
  const stopped = statuses.find((status) => status.stop !== null);
  const state = statuses.every((status) => status.state === 'completed') ? 'completed' : 'stopped';
  const sum = (read: (status: RunStatus) => number) =>
    statuses.reduce((total, status) => total + read(status), 0);
  const times = (read: (status: RunStatus) => string | null) =>
    statuses
      .map(read)
      .filter((time): time is string => time !== null)
      .sort();
  return {
    kind: 'run-status',
    runId: runIdFor(set.whole.manifest, set.whole.sha256),
    manifestSha256: set.whole.sha256,
    state,
    startedAt: times((s) => s.startedAt)[0] ?? set.whole.manifest.createdAt,
    updatedAt: times((s) => s.updatedAt).at(-1) ?? set.whole.manifest.createdAt,
    finishedAt: state === 'completed' ? (times((s) => s.finishedAt).at(-1) ?? null) : null,
    resumes: sum((s) => s.resumes),
    requests: {
      total: merged.plan.requests.length,
      resolved: resolved.length,
      failed: resolved.filter((o) => o.kind === 'resolved' && o.result.failure !== 'none').length,
      abandoned,
      notSent: merged.plan.requests.length - resolved.length - abandoned,
    },
    spend: {
      ceilingUsd: set.whole.manifest.ceilingUsd,
      committedUsd: sum((s) => s.spend.committedUsd),
      chargedUsd: sum((s) => s.spend.chargedUsd),
    },
    stop: stopped?.stop ?? null,
    blocks: {
      complete,
      incomplete: blocks.filter((block) => block.status === 'incomplete').length,
      notStarted: blocks.filter((block) => block.status === 'not_started').length,
    },
    // the shards ran side by side: the longest is the run's elapsed time
    elapsedMs: Math.max(0, ...statuses.map((status) => status.elapsedMs)),
    exitCode:
      state === 'completed' && complete === blocks.length
        ? EXIT_CODES.ok
        : EXIT_CODES.stoppedOrIncomplete,
    ...(merged.head === undefined ? {} : { attemptLog: merged.head }),
  };
}

/** Copies the files every shard holds alike (prompts, worlds, catalog, calibration) from the first. */
async function copyCreationFiles(from: string, to: string): Promise<void> {
  for (const dir of [RUN_FOLDER_DIRECTORY.prompts, RUN_FOLDER_DIRECTORY.worlds])
    await cp(join(from, dir), join(to, dir), { recursive: true });
  for (const file of [RUN_FILE_NAME.catalog, RUN_FILE_NAME.calibration])
    await cp(join(from, file), join(to, file)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
}

/** Copies every shard's payloads and notebooks (the same file in two shards has the same bytes). */
async function copyShardRecords(shards: readonly ShardFolder[], to: string): Promise<void> {
  for (const shard of shards)
    for (const dir of [RUN_FOLDER_DIRECTORY.payloads, RUN_FOLDER_DIRECTORY.notebooks])
      await cp(join(shard.dir, dir), join(to, dir), { recursive: true }).catch(
        (error: NodeJS.ErrnoException) => {
          if (error.code !== 'ENOENT') throw error;
        },
      );
}

// long-function: the merged folder's files in creation order, each one call
async function writeMergedFolder(set: ShardSet, plan: RunPlan, outDir: string): Promise<MergedRun> {
  const paths = runPaths(outDir);
  const shardPaths = set.shards.map((shard) => runPaths(shard.dir));
  const first = set.shards[0] as ShardFolder;
  await copyCreationFiles(first.dir, outDir);
  await writeJsonFile(paths.plan, plan);
  await copyShardRecords(set.shards, outDir);
  const ordinals = planOrdinals(plan);
  await mergeJsonlFiles(
    shardPaths.map((p) => p.requestIndex),
    paths.requestIndex,
    ordinals,
  );
  const attempts = await mergeAttemptLogs(
    shardPaths.map((p) => p.attempts),
    paths.attempts,
    ordinals,
    set.whole.sha256,
  );
  await writeAttemptAnchor(paths.attemptsHead, {
    records: attempts.records,
    headSha256: attempts.headSha256,
  });
  for (const file of ['failures', 'smoke', 'ledger'] as const)
    await mergeJsonlFiles(
      shardPaths.map((p) => p[file]),
      paths[file],
    );
  const blocks = computeBlockStatuses(plan, outcomesFromAttemptLog(attempts.merged));
  await writeJsonFile(paths.blocks, blocks);
  const statuses: RunStatus[] = [];
  for (const p of shardPaths) statuses.push(await readJsonFile(p.status, RunStatusSchema));
  const status = mergedStatus(set, statuses, blocks, {
    plan,
    records: attempts.merged,
    head: { records: attempts.records, headSha256: attempts.headSha256 },
  });
  await writeJsonFile(paths.status, status, { durable: true });
  // The manifest goes last and durably, as in a created run: its presence marks a whole folder.
  await writeFileAtomic(paths.manifest, set.whole.text, { durable: true });
  await writeFileAtomic(paths.manifestSha256, `${set.whole.sha256}  ${RUN_FILE_NAME.manifest}\n`, {
    durable: true,
  });
  return { runDir: outDir, status, exitCode: status.exitCode ?? EXIT_CODES.stoppedOrIncomplete };
}

/**
 * Merges the run folders of a sharded run (`chi pilot --shard i/n`) into one run folder of the
 * unsharded run (`chi merge DIR... --out DIR`): checks that the shards share one frozen manifest
 * apart from their `shard` field and cover the plan exactly once ({@link checkShardSet}), that
 * each folder is intact, then writes the unsharded manifest and plan, every shard's records (the
 * attempt log in plan order, linked into one chain under the unsharded manifest's hash) and the
 * status and block statuses they amount to. Each shard folder is locked while it is read. The
 * caller then writes the derived files (`finishRun`), which equal an unsharded run's.
 *
 * @throws UsageError (exit 2) for a missing, duplicated or foreign shard, naming it;
 *   RunFolderDamagedError / ManifestIntegrityError (exit 5) for a damaged shard folder
 */
export async function mergeShards(options: {
  readonly shardDirs: readonly string[];
  readonly outDir: string;
  /**
   * The experiment modules the shards ran (default: the pilot's registry): the whole plan is
   * rebuilt with them (a study session after the first runs its retention experiment).
   */
  readonly experiments?: readonly AnyExperiment[];
}): Promise<MergedRun> {
  const folders: ShardFolder[] = [];
  for (const dir of options.shardDirs) folders.push(await readShardFolder(dir));
  const set = checkShardSet(folders);
  const outDir = resolve(options.outDir);
  await assertEmptyOrMissing(outDir);
  const locks: RunLock[] = [];
  try {
    for (const shard of set.shards) locks.push(acquireRunLock(shard.dir, { command: 'chi merge' }));
    for (const shard of set.shards) await assertRunIntact(shard.dir, shard.frozen);
    const plan = await checkedPlans(set, options.experiments);
    await mkdir(outDir, { recursive: true });
    return await writeMergedFolder(set, plan, outDir);
  } finally {
    for (const lock of locks) lock.release();
  }
}
