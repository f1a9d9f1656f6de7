import type { JsonlWriter } from '@chi/run';
import { attemptRecordSha256, writeAttemptAnchor } from '@chi/run/internal';
import type { AttemptRecord } from '@chi/spec';

/** Where an intact attempt log's chain ends. */
export interface AttemptChainHead {
  readonly records: number;
  readonly headSha256: string | null;
  /** False for a log written before the chain existed: it is continued without links. */
  readonly chained: boolean;
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
 *
 * With `anchorPath` (`attempts.head.json`), the chain's head is written there now and again after
 * every append is durable, in call order, before `append` resolves: the last record is anchored
 * outside the log even when `status.json` (written at a session's end) is deleted. A crash
 * between an append and its anchor leaves the anchor one append behind, never ahead.
 */
export async function chainAttemptWriter(
  writer: JsonlWriter<AttemptRecord>,
  start: AttemptChainHead,
  anchorPath?: string,
): Promise<ChainedAttemptWriter> {
  let records = start.records;
  let headSha256 = start.headSha256;
  if (anchorPath !== undefined) await writeAttemptAnchor(anchorPath, { records, headSha256 });
  let anchored: Promise<void> = Promise.resolve();
  return {
    append(record) {
      const linked: AttemptRecord = start.chained
        ? { ...record, previousSha256: headSha256 }
        : { ...record };
      headSha256 = attemptRecordSha256(linked);
      records += 1;
      const appended = writer.append(linked);
      if (anchorPath === undefined) return appended;
      const head = { records, headSha256 };
      // Anchors are written one at a time in call order, each after its own append.
      // A failed append or anchor rejects its own call only (the next anchor still follows it).
      const mine = Promise.all([anchored.catch(() => {}), appended]).then(() =>
        writeAttemptAnchor(anchorPath, head),
      );
      anchored = mine;
      return mine;
    },
    head: () => ({ records, headSha256 }),
    close: () => writer.close(),
  };
}
