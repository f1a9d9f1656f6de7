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

/**
 * Where the core writes each entry after booking it: `append` resolves once the entry is
 * durable and must keep the order of calls; `check` throws when no more entries can be taken.
 * @internal
 */
export interface LedgerJournal {
  append(entry: LedgerEntry): Promise<void> | void;
  check?(): void;
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
 * The state an operation of the ledger reads and updates: the book, its history, the journal,
 * the first failed write and the last write's promise. One explicit object instead of a closure.
 */
interface LedgerCoreState {
  readonly book: LedgerBook;
  readonly history: LedgerEntry[];
  readonly journal: LedgerJournal;
  readonly now: () => Date;
  readonly stopAtCeiling: boolean;
  broken: unknown;
  lastWrite: Promise<void>;
}

function checkUsable(core: LedgerCoreState): void {
  core.journal.check?.();
  if (core.broken !== null) {
    throw new ChiError(
      'the ledger is unusable after a failed write; reopen it to recover its state',
      {
        cause: core.broken,
      },
    );
  }
}

/** Books an entry now and returns the promise of its durability. */
function write(
  core: LedgerCoreState,
  build: (seq: number, at: string) => LedgerEntry,
): {
  entry: LedgerEntry;
  durable: Promise<void>;
} {
  const entry = build(core.book.nextSeq, core.now().toISOString());
  const problem = applyEntry(core.book, entry);
  if (problem !== null) throw new ChiError(`ledger invariant broken: ${problem}`);
  core.history.push(entry);
  const durable = (async () => core.journal.append(entry))().catch((error: unknown) => {
    core.broken ??= error;
    throw error;
  });
  core.lastWrite = durable.catch(() => undefined);
  return { entry, durable };
}

function openAmount(book: LedgerBook, reservationId: string): number {
  const reserved = book.open.get(reservationId);
  if (reserved === undefined) {
    throw new InvalidArgumentError(
      'reservationId',
      `${reservationId} is not an open reservation (unknown, or already settled or retained)`,
    );
  }
  return reserved;
}

async function reserve(
  core: LedgerCoreState,
  args: { readonly attemptId: string; readonly amountUsd: number },
): Promise<ReserveOutcome> {
  requireText('attemptId', args.attemptId);
  requireUsd('amountUsd', args.amountUsd);
  checkUsable(core);
  const book = core.book;
  const amountNanos = toNanos(args.amountUsd);
  if (book.stopped !== null) {
    const reason = `the ledger has stopped new requests (${book.stopped.kind}): ${book.stopped.message}`;
    // Wait for earlier entries (e.g. the stop itself) to be durable before answering.
    await core.lastWrite;
    return { ok: false, reason, state: stateOf(book) } satisfies ReserveOutcome;
  }
  const ceiling = book.ceilingNanos ?? 0;
  const committed = committedNanos(book);
  if (committed + amountNanos > ceiling) {
    const reason = `reserving ${formatUsd(amountNanos)} for attempt ${args.attemptId} would bring the committed total from ${formatUsd(committed)} to ${formatUsd(committed + amountNanos)}, above the ceiling of ${formatUsd(ceiling)}`;
    if (core.stopAtCeiling) {
      await write(core, (seq, at) => ({
        kind: 'stop',
        seq,
        at,
        reason: { kind: 'ceiling', message: reason, at },
      })).durable;
    }
    return { ok: false, reason, state: stateOf(book) } satisfies ReserveOutcome;
  }
  const { entry, durable } = write(core, (seq, at) => ({
    kind: 'reserve',
    seq,
    at,
    reservationId: `res-${seq}`,
    attemptId: args.attemptId,
    amountUsd: amountNanos / 1e9,
  }));
  await durable;
  if (entry.kind !== 'reserve')
    throw new ChiError('ledger invariant broken: expected a reserve entry');
  return { ok: true, reservationId: entry.reservationId, amountUsd: entry.amountUsd };
}

async function settle(
  core: LedgerCoreState,
  reservationId: string,
  args: { readonly chargedUsd: number; readonly source: string },
): Promise<SettleOutcome> {
  requireText('reservationId', reservationId);
  requireUsd('chargedUsd', args.chargedUsd);
  requireText('source', args.source);
  checkUsable(core);
  const reserved = openAmount(core.book, reservationId);
  const chargedNanos = toNanos(args.chargedUsd);
  const settled = write(core, (seq, at) => ({
    kind: 'settle',
    seq,
    at,
    reservationId,
    chargedUsd: args.chargedUsd,
    source: args.source,
  }));
  const overcharged = chargedNanos > reserved;
  if (overcharged && core.book.stopped === null) {
    const message = `reservation ${reservationId} was charged ${formatUsd(chargedNanos)} (${args.source}), above its reservation of ${formatUsd(reserved)}`;
    await write(core, (seq, at) => ({
      kind: 'stop',
      seq,
      at,
      reason: { kind: 'overcharge', message, at },
    })).durable;
  }
  await settled.durable;
  return { chargedUsd: args.chargedUsd, overcharged };
}

async function retain(core: LedgerCoreState, reservationId: string, reason: string) {
  requireText('reservationId', reservationId);
  requireText('reason', reason);
  checkUsable(core);
  openAmount(core.book, reservationId);
  await write(core, (seq, at) => ({ kind: 'retain', seq, at, reservationId, reason })).durable;
}

async function stop(
  core: LedgerCoreState,
  reason: { readonly kind: 'manual' | 'overcharge' | 'ceiling'; readonly message: string },
) {
  if (!['manual', 'overcharge', 'ceiling'].includes(reason.kind)) {
    throw new InvalidArgumentError(
      'reason.kind',
      `expected manual, overcharge or ceiling, found ${JSON.stringify(reason.kind)}`,
    );
  }
  requireText('reason.message', reason.message);
  checkUsable(core);
  if (core.book.stopped !== null) return;
  await write(core, (seq, at) => ({
    kind: 'stop',
    seq,
    at,
    reason: { kind: reason.kind, message: reason.message, at },
  })).durable;
}

/**
 * The logic both ledgers share. Each operation checks and applies its entry synchronously, in
 * one JavaScript turn, so reservations are atomic under any concurrency (no await can interleave
 * between the ceiling check and the booking). The operation then resolves only once the journal
 * has made its entry durable; journal writes keep the entries' order.
 * @internal
 */
export function createLedgerCore(
  book: LedgerBook,
  history: LedgerEntry[],
  journal: LedgerJournal,
  options: LedgerOptions,
): InspectableLedger {
  const core: LedgerCoreState = {
    book,
    history,
    journal,
    now: options.now ?? (() => new Date()),
    stopAtCeiling: options.stopAtCeiling ?? true,
    broken: null,
    lastWrite: Promise.resolve(),
  };
  return {
    specificationVersion: 'chi-ledger-v1',
    reserve: (args) => reserve(core, args),
    settle: (reservationId, args) => settle(core, reservationId, args),
    retain: (reservationId, reason) => retain(core, reservationId, reason),
    stop: (reason) => stop(core, reason),
    async state(): Promise<LedgerState> {
      return stateOf(book);
    },
    async entries() {
      return history.slice();
    },
  };
}
