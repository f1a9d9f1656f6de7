import {
  type BudgetLedger,
  ChiError,
  InvalidArgumentError,
  type LedgerEntry,
  type LedgerState,
  type ReserveOutcome,
  type SettleOutcome,
} from '@chi/spec';
import { applyEntry, committedNanos, type LedgerBook, stateOf, toNanos } from './ledger-book';

/** A {@link BudgetLedger} whose append-only history can be read back. */
export interface InspectableLedger extends BudgetLedger {
  /** Every entry appended so far, in order; `state()` is their fold. */
  entries(): Promise<readonly LedgerEntry[]>;
}

/** Options shared by the memory and the file ledger. */
export interface LedgerOptions {
  /** Clock for entry timestamps; `() => new Date()` by default (injectable for tests). */
  readonly now?: () => Date;
  /**
   * Whether a reservation refused at the ceiling also stops the ledger, so no later (smaller)
   * request slips in: the protocol stops the run at the ceiling. Default true.
   */
  readonly stopAtCeiling?: boolean;
}

/** Where the core writes each entry before applying it. @internal */
export interface LedgerJournal {
  append(entry: LedgerEntry): Promise<void> | void;
}

function formatUsd(nanos: number): string {
  return `${(nanos / 1e9).toFixed(9).replace(/0+$/, '').replace(/\.$/, '')} USD`;
}

function requireText(field: string, value: unknown): void {
  if (typeof value !== 'string' || value.length === 0) {
    throw new InvalidArgumentError(
      field,
      `expected a non-empty string, found ${JSON.stringify(value)}`,
    );
  }
}

function requireUsd(field: string, value: unknown): asserts value is number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new InvalidArgumentError(
      field,
      `expected a finite USD amount >= 0, found ${String(value)}`,
    );
  }
}

/**
 * The logic both ledgers share: every operation runs through one promise chain, so reservations
 * are atomic under any concurrency; each entry is journaled (durably, for the file ledger)
 * before it is applied and before the operation resolves.
 * @internal
 */
export function createLedgerCore(
  book: LedgerBook,
  history: LedgerEntry[],
  journal: LedgerJournal,
  options: LedgerOptions,
): InspectableLedger {
  const now = options.now ?? (() => new Date());
  const stopAtCeiling = options.stopAtCeiling ?? true;
  let tail: Promise<unknown> = Promise.resolve();
  let broken: unknown = null;

  function serialize<T>(operation: () => Promise<T>): Promise<T> {
    const run = tail.then(() => {
      if (broken !== null) {
        throw new ChiError(
          'the ledger is unusable after a failed write; reopen it to recover its state',
          { cause: broken },
        );
      }
      return operation();
    });
    tail = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  async function write(build: (seq: number, at: string) => LedgerEntry): Promise<LedgerEntry> {
    const entry = build(book.nextSeq, now().toISOString());
    try {
      await journal.append(entry);
    } catch (error) {
      broken = error;
      throw error;
    }
    const problem = applyEntry(book, entry);
    if (problem !== null) throw new ChiError(`ledger invariant broken: ${problem}`);
    history.push(entry);
    return entry;
  }

  function refusal(reason: string): ReserveOutcome {
    return { ok: false, reason, state: stateOf(book) };
  }

  return {
    specificationVersion: 'chi-ledger-v1',

    async reserve(args) {
      requireText('attemptId', args.attemptId);
      requireUsd('amountUsd', args.amountUsd);
      const amountNanos = toNanos(args.amountUsd);
      return serialize(async () => {
        if (book.stopped !== null) {
          return refusal(
            `the ledger has stopped new requests (${book.stopped.kind}): ${book.stopped.message}`,
          );
        }
        const ceiling = book.ceilingNanos ?? 0;
        const committed = committedNanos(book);
        if (committed + amountNanos > ceiling) {
          const message = `reserving ${formatUsd(amountNanos)} for attempt ${args.attemptId} would bring the committed total from ${formatUsd(committed)} to ${formatUsd(committed + amountNanos)}, above the ceiling of ${formatUsd(ceiling)}`;
          if (stopAtCeiling) {
            await write((seq, at) => ({
              kind: 'stop',
              seq,
              at,
              reason: { kind: 'ceiling', message, at },
            }));
          }
          return refusal(message);
        }
        const entry = await write((seq, at) => ({
          kind: 'reserve',
          seq,
          at,
          reservationId: `res-${seq}`,
          attemptId: args.attemptId,
          amountUsd: amountNanos / 1e9,
        }));
        if (entry.kind !== 'reserve')
          throw new ChiError('ledger invariant broken: expected a reserve entry');
        return { ok: true, reservationId: entry.reservationId, amountUsd: entry.amountUsd };
      });
    },

    async settle(reservationId, args): Promise<SettleOutcome> {
      requireText('reservationId', reservationId);
      requireUsd('chargedUsd', args.chargedUsd);
      requireText('source', args.source);
      return serialize(async () => {
        const reserved = book.open.get(reservationId);
        if (reserved === undefined) {
          throw new InvalidArgumentError(
            'reservationId',
            `${reservationId} is not an open reservation (unknown, or already settled or retained)`,
          );
        }
        const chargedNanos = toNanos(args.chargedUsd);
        await write((seq, at) => ({
          kind: 'settle',
          seq,
          at,
          reservationId,
          chargedUsd: args.chargedUsd,
          source: args.source,
        }));
        const overcharged = chargedNanos > reserved;
        if (overcharged && book.stopped === null) {
          const message = `reservation ${reservationId} was charged ${formatUsd(chargedNanos)} (${args.source}), above its reservation of ${formatUsd(reserved)}`;
          await write((seq, at) => ({
            kind: 'stop',
            seq,
            at,
            reason: { kind: 'overcharge', message, at },
          }));
        }
        return { chargedUsd: args.chargedUsd, overcharged };
      });
    },

    async retain(reservationId, reason) {
      requireText('reservationId', reservationId);
      requireText('reason', reason);
      return serialize(async () => {
        if (!book.open.has(reservationId)) {
          throw new InvalidArgumentError(
            'reservationId',
            `${reservationId} is not an open reservation (unknown, or already settled or retained)`,
          );
        }
        await write((seq, at) => ({ kind: 'retain', seq, at, reservationId, reason }));
      });
    },

    async stop(reason) {
      if (!['manual', 'overcharge', 'ceiling'].includes(reason.kind)) {
        throw new InvalidArgumentError(
          'reason.kind',
          `expected manual, overcharge or ceiling, found ${JSON.stringify(reason.kind)}`,
        );
      }
      requireText('reason.message', reason.message);
      return serialize(async () => {
        if (book.stopped !== null) return;
        await write((seq, at) => ({
          kind: 'stop',
          seq,
          at,
          reason: { kind: reason.kind, message: reason.message, at },
        }));
      });
    },

    async state(): Promise<LedgerState> {
      return serialize(async () => stateOf(book));
    },

    async entries() {
      return serialize(async () => history.slice());
    },
  };
}
