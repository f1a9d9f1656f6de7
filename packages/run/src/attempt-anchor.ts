import { randomUUID } from 'node:crypto';
import { open, readFile, rename } from 'node:fs/promises';
import type { AttemptLogAnchor } from './attempt-chain';

/** The name of the anchor file in messages (its path comes from `runFolderPaths().attemptsHead`). */
export const ATTEMPT_ANCHOR_FILE = 'attempts.head.json';

/** What reading `attempts.head.json` found: the anchor, nothing (no file), or why it is unusable. */
export type AttemptAnchorRead =
  | { readonly kind: 'anchor'; readonly anchor: AttemptLogAnchor }
  | { readonly kind: 'absent' }
  | { readonly kind: 'damaged'; readonly problem: string };

const HEX64 = /^[0-9a-f]{64}$/;

/**
 * Reads a run's attempt-log anchor (`attempts.head.json`, `{ records, headSha256 }`): the record
 * count and last record hash the writer saw after its latest append. The file is private to the
 * run folder (never published).
 */
export async function readAttemptAnchor(path: string): Promise<AttemptAnchorRead> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'absent' };
    return { kind: 'damaged', problem: `it cannot be read: ${(error as Error).message}` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'damaged', problem: 'it is not JSON (edited or truncated)' };
  }
  const { records, headSha256 } = (typeof value === 'object' && value !== null ? value : {}) as {
    records?: unknown;
    headSha256?: unknown;
  };
  const validHead =
    headSha256 === null || (typeof headSha256 === 'string' && HEX64.test(headSha256));
  if (!Number.isSafeInteger(records) || (records as number) < 0 || !validHead)
    return {
      kind: 'damaged',
      problem: 'expected { records: a count, headSha256: 64 hex digits or null }',
    };
  return {
    kind: 'anchor',
    anchor: {
      records: records as number,
      headSha256: headSha256 as string | null,
      file: ATTEMPT_ANCHOR_FILE,
    },
  };
}

/**
 * Replaces `attempts.head.json` with `anchor`, atomically (a temporary file, fsync'd, renamed
 * over it): a crash leaves the previous anchor or the new one, never a torn file. Written after
 * the append it anchors is durable, so the anchor never claims more records than the log holds.
 */
export async function writeAttemptAnchor(
  path: string,
  anchor: { readonly records: number; readonly headSha256: string | null },
): Promise<void> {
  const temporary = `${path}.${randomUUID()}.tmp`;
  const handle = await open(temporary, 'w');
  try {
    await handle.writeFile(
      `${JSON.stringify({ records: anchor.records, headSha256: anchor.headSha256 })}\n`,
    );
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, path);
}
