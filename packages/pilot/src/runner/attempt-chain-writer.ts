import { failpoint } from '@chi/report/internal';
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
  /**
   * Appends `record` with `previousSha256` set (in call order, which is file order); resolves once
   * the record is durable and an anchor covering it is written.
   */
  append(record: Omit<AttemptRecord, 'previousSha256'>): Promise<void>;
  /**
   * Appends `record` like `append`, but resolves as soon as the record is durable in the log (a
   * `before_send`: its request may be sent then). Its anchor follows in the group commit; a
   * failed anchor is written again by the next group, and `close` rejects if none covered it.
   */
  appendDurable(record: Omit<AttemptRecord, 'previousSha256'>): Promise<void>;
  /** The chain's current end, for `status.json`. */
  head(): { readonly records: number; readonly headSha256: string | null };
  /** Waits for the last anchor, which covers every record appended; rejects if it failed. */
  close(): Promise<void>;
}

/** The chain's end after some record: what `attempts.head.json` holds. */
interface ChainEnd {
  readonly records: number;
  readonly headSha256: string | null;
}

/** Writes `attempts.head.json` (`writeAttemptAnchor` of `@chi/run`, or a test's stand-in). */
export type AnchorWrite = (path: string, anchor: ChainEnd) => Promise<void>;

/** An append waiting for an anchor that covers it. */
interface AnchorWaiter {
  readonly records: number;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * The anchor's group commit: each call of `durable(end)` says the log is durable up to `end` and
 * resolves once an anchor covering it is written. One anchor is written at a time, always the
 * newest durable end, so the appends that became durable while an anchor was being written share
 * the next one (one write, one fsync, one rename for the group, not one per record).
 */
function anchorGroupCommit(path: string, write: AnchorWrite) {
  let newest: ChainEnd | null = null;
  let settled = 0;
  // The records the newest anchor written covers, and the error of a later one that failed.
  let anchored = 0;
  let failure: unknown = null;
  const waiters: AnchorWaiter[] = [];
  let running: Promise<void> | null = null;
  const settleUpTo = (records: number, error: unknown): void => {
    settled = records;
    while (waiters.length > 0 && (waiters[0] as AnchorWaiter).records <= records) {
      const waiter = waiters.shift() as AnchorWaiter;
      if (error === undefined) waiter.resolve();
      else waiter.reject(error);
    }
  };
  const drain = async (): Promise<void> => {
    // `running` is set before the loop can end (and clear it), however the loop goes.
    await null;
    while (newest !== null && newest.records > settled) {
      const end: ChainEnd = newest;
      try {
        // A kill here leaves the group's records durable and the anchor one group behind.
        await failpoint('attempts:before-anchor');
        await write(path, end);
        anchored = end.records;
        failure = null;
        settleUpTo(end.records, undefined);
      } catch (error) {
        // A failed anchor rejects the appends it covered only; the next group's anchor follows.
        failure = error ?? new Error('anchor write failed');
        settleUpTo(end.records, failure);
      }
    }
    running = null;
  };
  return {
    durable(end: ChainEnd): Promise<void> {
      newest = end;
      const covered = new Promise<void>((resolve, reject) =>
        waiters.push({ records: end.records, resolve, reject }),
      );
      if (running === null) running = drain();
      return covered;
    },
    /** Resolves once no anchor is being written; rejects if the last one written failed. */
    async idle(): Promise<void> {
      await running;
      if (newest !== null && anchored < newest.records) throw failure;
    },
  };
}

/**
 * Wraps a JSONL writer so every appended attempt record carries the hash of the previous one.
 * The link is computed when `append` is called; the writer keeps call order, so links follow
 * file order even with concurrent requests.
 *
 * With `anchorPath` (`attempts.head.json`), the chain's head is written there now, and `append`
 * resolves only once its record is durable and an anchor covering it is written (`appendDurable`
 * once it is durable, its anchor following; `docs/protocol.md`, issue 38). Anchors are a
 * group commit: the newest durable head is written, one anchor at a time, so the records that
 * became durable while the previous anchor was written share one (`docs/run-folder-integrity.md`).
 * A crash between a group's append and its anchor leaves the anchor behind the log, never ahead.
 *
 * @param writeAnchor - how the anchor is written (`writeAttemptAnchor`; tests count the writes)
 */
export async function chainAttemptWriter(
  writer: JsonlWriter<AttemptRecord>,
  start: AttemptChainHead,
  anchorPath?: string,
  writeAnchor: AnchorWrite = writeAttemptAnchor,
): Promise<ChainedAttemptWriter> {
  let records = start.records;
  let headSha256 = start.headSha256;
  if (anchorPath !== undefined) await writeAnchor(anchorPath, { records, headSha256 });
  const anchors = anchorPath === undefined ? null : anchorGroupCommit(anchorPath, writeAnchor);
  /** Links and appends `record`; resolves once it is durable, with the anchor's promise. */
  const link = (record: Omit<AttemptRecord, 'previousSha256'>) => {
    const linked: AttemptRecord = start.chained
      ? { ...record, previousSha256: headSha256 }
      : { ...record };
    headSha256 = attemptRecordSha256(linked);
    records += 1;
    const end = { records, headSha256 };
    // The writer resolves appends in file order, so each `durable` call is the newest end.
    return writer.append(linked).then(() => ({ anchor: anchors?.durable(end) }));
  };
  return {
    async append(record) {
      await (await link(record)).anchor;
    },
    async appendDurable(record) {
      const { anchor } = await link(record);
      // Not waited for: a failure is kept by the group commit, and `close` reports it.
      anchor?.catch(() => {});
    },
    head: () => ({ records, headSha256 }),
    async close() {
      try {
        await anchors?.idle();
      } finally {
        await writer.close();
      }
    },
  };
}
