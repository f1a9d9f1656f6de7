import { open, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { RequestOutcome } from '@chi/run';
import { attemptLogFoldOf, loggedOutcome, readAttemptLogLean } from '@chi/run/internal';
import { type ChatResult, RunFolderDamagedError } from '@chi/spec';

/**
 * Every request's outcome as the attempt log records it, read in one streamed pass
 * (`readAttemptLogLean` of `@chi/run`, the runner's fold and torn-tail rule) with the log's hash
 * chain checked against `manifestSha256` in the same pass. A resolved outcome's result is parsed
 * from its line once, and its `text` is read from the line again whenever it is asked for: the
 * map holds a few small fields a request, never the log's text or its replies, so the memory of
 * `recomputeDivergence` grows with the largest world, not with the number of worlds.
 *
 * @param path - the run folder's (or release's) `attempts.jsonl`
 * @throws `RunFolderDamagedError` naming the file: missing or unreadable; a line that is not a
 *   valid record (with its number); a torn last line (an unfinished write); an attempt made under
 *   another manifest or a broken hash chain (the first lines that do not follow)
 */
export async function readDivergenceOutcomes(
  path: string,
  manifestSha256: string,
): Promise<Map<string, RequestOutcome>> {
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch (error) {
    throw new RunFolderDamagedError(path, 'missing or unreadable', { cause: error });
  }
  let reading: Awaited<ReturnType<typeof readAttemptLogLean>>;
  try {
    reading = await readAttemptLogLean(dirname(path), manifestSha256, null);
  } catch (error) {
    throw new RunFolderDamagedError(path, (error as Error).message, { cause: error });
  }
  const { attempts, chain } = reading;
  await assertNoTornTail(path, size, attempts.length);
  if (chain.problems.length > 0) {
    const more = chain.problems.length > 3 ? `; and ${chain.problems.length - 3} more` : '';
    throw new RunFolderDamagedError(path, `${chain.problems.slice(0, 3).join('; ')}${more}`);
  }
  const fold = attemptLogFoldOf(attempts);
  if (fold === undefined) throw new Error('the lean reading of the attempt log has no fold');
  const outcomes = new Map<string, RequestOutcome>();
  for (const [requestId, state] of fold)
    outcomes.set(
      requestId,
      loggedOutcome(state, (index) => attempts[index]?.result as ChatResult),
    );
  return outcomes;
}

/**
 * Refuses a log whose last bytes are not a newline-terminated line (a write a crash cut short):
 * `chi verify` never recomputes from a log the runner would still repair on resume.
 */
async function assertNoTornTail(path: string, size: number, records: number): Promise<void> {
  const lastNewline = await lastNewlineOffset(path, size);
  if (lastNewline === size - 1 || size === 0) return;
  throw new RunFolderDamagedError(
    path,
    `line ${records + 1} is torn (an unfinished write at byte offset ${lastNewline + 1}): it holds ${records} complete records; resume the run to repair it`,
  );
}

/** Byte offset of the file's last newline, or -1; read backwards in 64 KiB steps. */
async function lastNewlineOffset(path: string, size: number): Promise<number> {
  const handle = await open(path, 'r');
  try {
    const chunk = Buffer.alloc(64 * 1024);
    for (let end = size; end > 0; end -= chunk.length) {
      const start = Math.max(0, end - chunk.length);
      const { bytesRead } = await handle.read(chunk, 0, end - start, start);
      const at = chunk.subarray(0, bytesRead).lastIndexOf(0x0a);
      if (at !== -1) return start + at;
    }
    return -1;
  } finally {
    await handle.close();
  }
}
