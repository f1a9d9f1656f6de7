import { ValidationError } from '@chi/spec';
import { describe, expect, it } from 'vitest';
import { foldLedger } from './ledger-book';

const at = '2026-09-01T10:00:00.000Z';

describe('foldLedger', () => {
  it('recomputes a released ledger', () => {
    const entries = [
      { kind: 'open', seq: 0, at, ceilingUsd: 10 },
      { kind: 'reserve', seq: 1, at, reservationId: 'res-1', attemptId: 'a#0', amountUsd: 0.5 },
      { kind: 'reserve', seq: 2, at, reservationId: 'res-2', attemptId: 'b#0', amountUsd: 0.25 },
      { kind: 'settle', seq: 3, at, reservationId: 'res-1', chargedUsd: 0.1, source: 'usage.cost' },
      { kind: 'stop', seq: 4, at, reason: { kind: 'manual', message: 'done', at } },
    ];
    expect(foldLedger(entries)).toEqual({
      ceilingUsd: 10,
      settledUsd: 0.1,
      retainedUsd: 0,
      openReservedUsd: 0.25,
      committedUsd: 0.35,
      remainingUsd: 9.65,
      openReservations: 1,
      stopped: { kind: 'manual', message: 'done', at },
    });
  });

  it('names the first entry that does not follow', () => {
    const open = { kind: 'open', seq: 0, at, ceilingUsd: 1 };
    expect(() =>
      foldLedger([
        { kind: 'reserve', seq: 0, at, reservationId: 'r', attemptId: 'a', amountUsd: 0 },
      ]),
    ).toThrow('[0]: the first entry must be kind "open", found "reserve"');
    expect(() =>
      foldLedger([open, { kind: 'retain', seq: 1, at, reservationId: 'r', reason: 'x' }]),
    ).toThrow('[1]: retain of reservation r, which is not open (unknown, settled or retained)');
    expect(() => foldLedger([open, { ...open, seq: 1 }])).toThrow('a second "open" entry');
    expect(() => foldLedger([open, { kind: 'bogus', seq: 1 }])).toThrow(ValidationError);
  });
});
