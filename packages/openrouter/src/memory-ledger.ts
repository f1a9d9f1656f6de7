import type { LedgerEntry } from '@chi/spec';
import { InvalidArgumentError } from '@chi/spec';
import { applyEntry, emptyBook } from './ledger-book';
import { createLedgerCore, type InspectableLedger, type LedgerOptions } from './ledger-core';

/** Options of {@link createMemoryLedger}. */
export interface MemoryLedgerOptions extends LedgerOptions {
  /** The USD ceiling: settled + retained + open reservations never exceed it. */
  readonly ceilingUsd: number;
}

/**
 * A budget ledger held in memory: for tests, benchmarks and short scripts. It follows the same
 * contract as the file ledger (atomic reservations, overcharge stops, entries readable), but
 * nothing survives the process: a paid run uses {@link createFileLedger}.
 *
 * @example
 * ```ts
 * const ledger = createMemoryLedger({ ceilingUsd: 5 });
 * const model = createOpenRouterModel({ model: 'moonshotai/kimi-k3', apiKey, ledger, safetyPrice, providers: ['moonshotai/mxfp4'] });
 * ```
 */
export function createMemoryLedger(options: MemoryLedgerOptions): InspectableLedger {
  if (!Number.isFinite(options.ceilingUsd) || options.ceilingUsd < 0) {
    throw new InvalidArgumentError(
      'ceilingUsd',
      `expected a finite USD amount >= 0, found ${options.ceilingUsd}`,
    );
  }
  const book = emptyBook();
  const at = (options.now ?? (() => new Date()))().toISOString();
  const open: LedgerEntry = { kind: 'open', seq: 0, at, ceilingUsd: options.ceilingUsd };
  applyEntry(book, open);
  return createLedgerCore(book, [open], { append: () => undefined }, options);
}
