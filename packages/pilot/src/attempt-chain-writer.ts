import type { JsonlWriter } from '@chi/chis';
import { type AttemptLogAnchor, attemptRecordSha256, checkAttemptChainFile } from '@chi/run';
import { type AttemptRecord, RunFolderDamagedError } from '@chi/spec';

/** Where an intact attempt log's chain ends. */
export interface AttemptChainHead {
  readonly records: number;
  readonly headSha256: string | null;
  /** False for a log written before the chain existed: it is continued without links. */
  readonly chained: boolean;
}

/**
 * Checks `attempts.jsonl` before a session appends to it: every record of this manifest, the
 * hash chain unbroken, and (with the anchor `status.json` recorded) no record removed or
 * rewritten since. Returns where the chain ends. The log is streamed, never held whole (a
 * confirmatory run's is 80 MB at 30 worlds).
 *
 * @throws `RunFolderDamagedError` (`@chi/spec`) naming the log and each problem
 */
export async function readAttemptChainHead(
  path: string,
  manifestSha256: string,
  anchor: AttemptLogAnchor | null,
): Promise<AttemptChainHead> {
  const check = await checkAttemptChainFile(path, manifestSha256, anchor);
  if (check.problems.length > 0)
    throw new RunFolderDamagedError(
      path,
      `${check.problems.slice(0, 3).join('; ')}${check.problems.length > 3 ? ` (${check.problems.length} problems)` : ''}. Not resumed: nothing was sent`,
    );
  return { records: check.records, headSha256: check.headSha256, chained: check.chained };
}

/** An attempt log writer that links each record to the one before it. */
export interface ChainedAttemptWriter {
  /** Appends `record` with `previousSha256` set (in call order, which is file order). */
  append(record: Omit<AttemptRecord, 'previousSha256'>): Promise<void>;
  /** The chain's current end, for `status.json`. */
  head(): { readonly records: number; readonly headSha256: string | null };
  close(): Promise<void>;
}

/**
 * Wraps a JSONL writer so every appended attempt record carries the hash of the previous one.
 * The link is computed when `append` is called; the writer keeps call order, so links follow
 * file order even with concurrent requests.
 */
export function chainAttemptWriter(
  writer: JsonlWriter<AttemptRecord>,
  start: AttemptChainHead,
): ChainedAttemptWriter {
  let records = start.records;
  let headSha256 = start.headSha256;
  return {
    append(record) {
      const linked: AttemptRecord = start.chained
        ? { ...record, previousSha256: headSha256 }
        : { ...record };
      headSha256 = attemptRecordSha256(linked);
      records += 1;
      return writer.append(linked);
    },
    head: () => ({ records, headSha256 }),
    close: () => writer.close(),
  };
}
