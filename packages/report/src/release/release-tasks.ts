import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RUN_FILE_NAME } from '@chi/run/internal';
import type { QualityAlphas } from '@chi/spec';
import { type RawMismatch, rawConsistency } from '../run-folder/raw-consistency';
import { readRunFolder } from '../run-folder/run-folder';
import { scoreRunBlocks } from '../scoring/score-run';
import { type RawFilesTask, type RawFileWritten, writeRawReleaseFiles } from './raw-release-files';
import { checkSha256Sums, type Sha256SumsProblem } from './sha256-sums';

/** What the checks of a release that need no recomputation found. */
export interface RawRecordsChecked {
  /** Every file against SHA256SUMS (`checkSha256Sums`). */
  readonly hashes: readonly Sha256SumsProblem[];
  /** The raw records' internal hashes (`rawConsistency`). */
  readonly raw: readonly RawMismatch[];
}

/** What the block scoring of a run on a worker thread reads. */
export interface ScoreBlocksTask {
  /** The run folder, or a release (its raw part, `release: true`). */
  readonly dir: string;
  readonly release: boolean;
  readonly alphas?: QualityAlphas;
  /**
   * Also check the release (`chi verify`) once the blocks are scored, with the records the worker
   * has read: every file against SHA256SUMS and the raw records' internal hashes, returned.
   */
  readonly verify?: boolean;
}

/**
 * Scores every started block of the run at `task.dir` with the built-in scorers (`scoreRunBlocks`),
 * each block's results sent as data in plan order: what `scoreRunFrom` takes on the main thread.
 */
export async function scoreBlocksOf(
  task: ScoreBlocksTask,
  send: (chunk: unknown) => Promise<void>,
): Promise<RawRecordsChecked | null> {
  const records = await readRunFolder(task.dir, { release: task.release });
  await scoreRunBlocks(records, task.alphas, send);
  if (task.verify !== true) return null;
  const hashes = await checkSha256Sums(task.dir);
  const manifestSha256File = await readFile(
    join(task.dir, RUN_FILE_NAME.manifestSha256),
    'utf8',
  ).catch(() => null);
  return { hashes, raw: rawConsistency(records, manifestSha256File) };
}

/**
 * The checks of `chi verify` that need no recomputation, on a worker beside it when the blocks are
 * scored in-process: every file against SHA256SUMS, and the raw records' own hashes (none when
 * the raw records cannot be read: the recomputation reads them too and names the file).
 */
export async function verifyRawRecords(task: { readonly dir: string }): Promise<RawRecordsChecked> {
  const hashes = await checkSha256Sums(task.dir);
  let raw: RawMismatch[] = [];
  try {
    const records = await readRunFolder(task.dir, { release: true });
    const manifestSha256File = await readFile(
      join(task.dir, RUN_FILE_NAME.manifestSha256),
      'utf8',
    ).catch(() => null);
    raw = rawConsistency(records, manifestSha256File);
  } catch {
    // unreadable raw records: reported by the recomputation, naming the file
  }
  return { hashes, raw };
}

/**
 * The tasks a release worker runs, by name: each takes and returns plain (cloneable) data; a
 * task that streams (`score-blocks`) sends its chunks through `send` as it goes.
 */
export const RELEASE_TASKS = {
  'write-raw-files': (task: RawFilesTask): Promise<RawFileWritten[]> => writeRawReleaseFiles(task),
  'verify-raw-records': (task: { readonly dir: string }): Promise<RawRecordsChecked> =>
    verifyRawRecords(task),
  'score-blocks': (task: ScoreBlocksTask, send: (chunk: unknown) => Promise<void>) =>
    scoreBlocksOf(task, send),
} as const;

/** The name of a release task. */
export type ReleaseTaskName = keyof typeof RELEASE_TASKS;
/** What a release task takes. */
export type ReleaseTaskInput<N extends ReleaseTaskName> = Parameters<(typeof RELEASE_TASKS)[N]>[0];
/** What a release task gives. */
export type ReleaseTaskOutput<N extends ReleaseTaskName> = Awaited<
  ReturnType<(typeof RELEASE_TASKS)[N]>
>;
