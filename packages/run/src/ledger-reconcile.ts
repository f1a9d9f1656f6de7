import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import {
  type AttemptRecord,
  type LedgerEntry,
  RunFolderDamagedError,
  type SystemSpec,
} from '@chi/spec';
import { LedgerEntrySchema } from '@chi/spec/internal';

/** Spend differences below this many USD are rounding (the ledger books in nano-USD). */
const USD_TOLERANCE = 1e-9;

/**
 * The USD a ledger commits: settled charges, retained and still-open reservations (the same
 * sum as `@chi/openrouter`'s `foldLedger(...).committedUsd`, which also checks the entries' order;
 * here a malformed order is not this check's concern), in nano-USD as the ledger books it.
 */
function committedUsd(entries: readonly LedgerEntry[]): number {
  const reserved = new Map<string, number>();
  let committedNanos = 0;
  for (const entry of entries) {
    if (entry.kind === 'reserve') {
      const nanos = Math.round(entry.amountUsd * 1e9);
      reserved.set(entry.reservationId, nanos);
      committedNanos += nanos;
    } else if (entry.kind === 'settle') {
      committedNanos +=
        Math.round(entry.chargedUsd * 1e9) - (reserved.get(entry.reservationId) ?? 0);
    }
  }
  return committedNanos / 1e9;
}

/** What the attempt log says the ledger must hold, for the transport systems of a run. */
export interface LedgerExpectation {
  /** Ledger attempt IDs (`<requestId>#<tryIndex>`) that must have a `reserve` entry. */
  readonly reservedTries: readonly string[];
  /** USD the resolved attempts record as charged or retained (the ledger's floor). */
  readonly recordedUsd: number;
  /** Whether any attempt of a transport system was started (then the ledger must exist). */
  readonly transportAttempts: number;
  /** Request IDs with a `before_send`: every ledger reservation must belong to one of them. */
  readonly startedRequests: ReadonlySet<string>;
}

/**
 * What the attempt log implies about the ledger: every try of a resolved request of a transport
 * system (OpenRouter or OpenAI-compatible) that was not refused by the budget reserved under
 * `<requestId>#<tryIndex>`, and the ledger committed at least the USD the results record.
 */
export function ledgerExpectation(
  records: Iterable<AttemptRecord>,
  systems: readonly SystemSpec[],
): LedgerExpectation {
  const fold = new ExpectationFold(systems);
  for (const record of records) fold.add(record);
  return fold.result();
}

/** {@link ledgerExpectation} built one record at a time, for a log streamed rather than held. */
export class ExpectationFold {
  readonly #transport: ReadonlySet<string>;
  readonly #reservedTries: string[] = [];
  readonly #startedRequests = new Set<string>();
  #recordedUsd = 0;
  #transportAttempts = 0;

  constructor(systems: readonly SystemSpec[]) {
    this.#transport = new Set(
      systems
        // An endpoint without a declared price reserves nothing (`--accept-unbounded-spend`).
        .filter(
          (system) =>
            system.kind !== 'scripted' &&
            !(system.kind === 'openai-compatible' && system.safetyPrice === null),
        )
        .map((system) => system.id),
    );
  }

  add(record: AttemptRecord): void {
    if (!this.#transport.has(record.systemId)) return;
    if (record.phase === 'before_send') {
      this.#transportAttempts += 1;
      this.#startedRequests.add(record.requestId);
    }
    if (record.phase !== 'after_response' || record.result === null) return;
    this.#recordedUsd += record.result.chargedUsd;
    for (const attempt of record.result.tries) {
      if (attempt.failure !== 'budget_refused')
        this.#reservedTries.push(`${record.requestId}#${attempt.tryIndex}`);
    }
  }

  result(): LedgerExpectation {
    return {
      reservedTries: this.#reservedTries,
      recordedUsd: this.#recordedUsd,
      transportAttempts: this.#transportAttempts,
      startedRequests: this.#startedRequests,
    };
  }
}

/**
 * Compares a ledger with what the attempt log implies and lists every contradiction: a missing
 * ledger, a reservation the log proves was made but the ledger lacks (rolled back or cut short),
 * or committed spend below what the results record. Empty when they agree.
 */
export function ledgerContradictions(
  expectation: LedgerExpectation,
  entries: readonly LedgerEntry[] | null,
): string[] {
  // The attempt log's before_send is durable before the ledger's reserve: a reservation for a
  // request the log never started means records were removed from the log.
  const orphans = (entries ?? []).filter(
    (entry) =>
      entry.kind === 'reserve' &&
      !expectation.startedRequests.has(entry.attemptId.slice(0, entry.attemptId.lastIndexOf('#'))),
  );
  if (orphans.length > 0)
    return [
      `it holds ${orphans.length} reservations for requests attempts.jsonl never started (first: ${orphans[0]?.kind === 'reserve' ? orphans[0].attemptId : ''}): attempts.jsonl was emptied or cut`,
    ];
  if (expectation.transportAttempts === 0) return [];
  if (entries === null || entries.length === 0)
    return [
      `it is missing or empty, but attempts.jsonl records ${expectation.transportAttempts} attempts of live systems: a new ledger would reset the budget`,
    ];
  const reserved = new Set(
    entries.flatMap((entry) => (entry.kind === 'reserve' ? [entry.attemptId] : [])),
  );
  const problems: string[] = [];
  const missing = expectation.reservedTries.filter((attemptId) => !reserved.has(attemptId));
  if (missing.length > 0)
    problems.push(
      `it lacks ${missing.length} reservations that attempts.jsonl proves were made (first: ${missing[0]}): it was rolled back or cut short`,
    );
  const committed = committedUsd(entries);
  if (committed + USD_TOLERANCE < expectation.recordedUsd)
    problems.push(
      `it commits ${committed} USD, below the ${expectation.recordedUsd} USD that attempts.jsonl records as charged or retained`,
    );
  return problems;
}

/** Reads `ledger.jsonl` (null when absent); a torn final line is dropped, any other bad line is damage. */
export async function readLedgerEntries(path: string): Promise<LedgerEntry[] | null> {
  if (!existsSync(path)) return null;
  const text = await readFile(path, 'utf8');
  // The last piece is empty after a final newline, or a torn line a crash left: dropped either way.
  const complete = text.split('\n').slice(0, -1);
  const entries: LedgerEntry[] = [];
  for (const [index, line] of complete.entries()) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      throw new RunFolderDamagedError(path, `line ${index + 1} is not JSON`);
    }
    const checked = LedgerEntrySchema.safeParse(parsed);
    if (!checked.success)
      throw new RunFolderDamagedError(path, `line ${index + 1} is not a ledger entry`);
    entries.push(checked.data);
  }
  return entries;
}

/**
 * Refuses to continue a run whose ledger contradicts its attempt log (see
 * {@link ledgerContradictions}): resuming with it would hand the run a budget it already spent.
 *
 * @throws `RunFolderDamagedError` (`@chi/spec`) naming `ledger.jsonl` and every contradiction
 */
export async function reconcileLedger(args: {
  readonly ledgerPath: string;
  /** The attempt log's records in file order: an array, or a stream (`streamRunJsonl`). */
  readonly records: Iterable<AttemptRecord> | AsyncIterable<AttemptRecord>;
  readonly systems: readonly SystemSpec[];
}): Promise<void> {
  const fold = new ExpectationFold(args.systems);
  for await (const record of args.records) fold.add(record);
  const entries = await readLedgerEntries(args.ledgerPath);
  let problems: string[];
  try {
    problems = ledgerContradictions(fold.result(), entries);
  } catch (error) {
    throw new RunFolderDamagedError(args.ledgerPath, (error as Error).message, { cause: error });
  }
  if (problems.length > 0)
    throw new RunFolderDamagedError(
      args.ledgerPath,
      `${problems.join('; ')}. Not resumed: nothing was sent. Restore the ledger from a backup, or start a new run`,
    );
}
