import { formatIssues, type LedgerEntry, type LedgerState, ValidationError } from '@chi/spec';
import { LedgerEntrySchema, type StopReason } from '@chi/spec/internal';

/**
 * The in-memory fold of ledger entries. Amounts are integer nano-dollars so that sums and the
 * ceiling comparison are exact: floating-point drift can never let a reservation slip through.
 * @internal
 */
export interface LedgerBook {
  ceilingNanos: number | null;
  settledNanos: number;
  retainedNanos: number;
  openNanos: number;
  readonly open: Map<string, number>;
  readonly closed: Set<string>;
  stopped: StopReason | null;
  nextSeq: number;
}

/** @internal */
export function toNanos(usd: number): number {
  return Math.round(usd * 1e9);
}

/** @internal */
export function emptyBook(): LedgerBook {
  return {
    ceilingNanos: null,
    settledNanos: 0,
    retainedNanos: 0,
    openNanos: 0,
    open: new Map(),
    closed: new Set(),
    stopped: null,
    nextSeq: 0,
  };
}

/**
 * Applies one entry to the book, returning a problem sentence instead when the entry does not
 * follow from the entries before it (out-of-order seq, unknown reservation, second open...).
 * @internal
 */
export function applyEntry(book: LedgerBook, entry: LedgerEntry): string | null {
  if (entry.seq !== book.nextSeq)
    return `seq ${entry.seq} is out of order: expected ${book.nextSeq}`;
  if (entry.kind !== 'open' && book.ceilingNanos === null)
    return `the first entry must be kind "open", found "${entry.kind}"`;
  switch (entry.kind) {
    case 'open':
      if (book.ceilingNanos !== null)
        return 'a second "open" entry: a ledger is opened once, with one ceiling';
      book.ceilingNanos = toNanos(entry.ceilingUsd);
      break;
    case 'reserve': {
      if (book.open.has(entry.reservationId) || book.closed.has(entry.reservationId)) {
        return `reservation ${entry.reservationId} is reserved twice`;
      }
      const amount = toNanos(entry.amountUsd);
      book.open.set(entry.reservationId, amount);
      book.openNanos += amount;
      break;
    }
    case 'settle':
    case 'retain': {
      const amount = book.open.get(entry.reservationId);
      if (amount === undefined) {
        return `${entry.kind} of reservation ${entry.reservationId}, which is not open (unknown, settled or retained)`;
      }
      book.open.delete(entry.reservationId);
      book.closed.add(entry.reservationId);
      book.openNanos -= amount;
      if (entry.kind === 'settle') book.settledNanos += toNanos(entry.chargedUsd);
      else book.retainedNanos += amount;
      break;
    }
    case 'stop':
      // The first reason stands: later stops add nothing.
      book.stopped ??= entry.reason;
      break;
  }
  book.nextSeq += 1;
  return null;
}

/** @internal */
export function committedNanos(book: LedgerBook): number {
  return book.settledNanos + book.retainedNanos + book.openNanos;
}

/** @internal */
export function stateOf(book: LedgerBook): LedgerState {
  const ceiling = book.ceilingNanos ?? 0;
  const committed = committedNanos(book);
  return {
    ceilingUsd: ceiling / 1e9,
    settledUsd: book.settledNanos / 1e9,
    retainedUsd: book.retainedNanos / 1e9,
    openReservedUsd: book.openNanos / 1e9,
    committedUsd: committed / 1e9,
    remainingUsd: (ceiling - committed) / 1e9,
    openReservations: book.open.size,
    stopped: book.stopped,
  };
}

/**
 * Recomputes a ledger's state from its entries, e.g. from a released `ledger.jsonl`, so anyone
 * can check the spend figures. Throws a {@link ValidationError} naming the first entry that does
 * not parse or does not follow from the entries before it.
 *
 * @example
 * ```ts
 * const entries = text.trimEnd().split('\n').map((line) => JSON.parse(line));
 * const { settledUsd, retainedUsd } = foldLedger(entries);
 * ```
 */
export function foldLedger(entries: readonly unknown[]): LedgerState {
  const book = emptyBook();
  for (const [index, raw] of entries.entries()) {
    const parsed = LedgerEntrySchema.safeParse(raw);
    if (!parsed.success) {
      throw new ValidationError(
        'ledger entries',
        formatIssues(parsed.error.issues).map((issue) => ({
          path: issue.path === '' ? `[${index}]` : `[${index}].${issue.path}`,
          message: issue.message,
        })),
      );
    }
    const problem = applyEntry(book, parsed.data);
    if (problem !== null)
      throw new ValidationError('ledger entries', [{ path: `[${index}]`, message: problem }]);
  }
  return stateOf(book);
}
