import { describe, expect, it } from 'vitest';
import { ledgerContract } from '../test/ledger-contract';
import { createMemoryLedger } from './memory-ledger';

ledgerContract('createMemoryLedger', async (options) => createMemoryLedger(options));

describe('createMemoryLedger', () => {
  it('refuses a negative or non-finite ceiling', () => {
    expect(() => createMemoryLedger({ ceilingUsd: -1 })).toThrow(
      'ceilingUsd: expected a finite USD amount >= 0, found -1',
    );
    expect(() => createMemoryLedger({ ceilingUsd: Number.POSITIVE_INFINITY })).toThrow(
      'ceilingUsd',
    );
  });
});
