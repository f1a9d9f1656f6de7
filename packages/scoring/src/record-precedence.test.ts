import type { MemoryRecord } from '@chi/spec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RECORDS, T1, T2, T3, T4, T5 } from './__fixtures__/tiny-world';
import {
  compareByPrecedence,
  compareIsoTimes,
  indexRecords,
  precedenceFor,
} from './record-precedence';

describe('compareIsoTimes', () => {
  it('compares instants exactly, whatever the fractional precision', () => {
    expect(compareIsoTimes('2026-01-01T00:00:00Z', '2026-01-01T00:00:00.000Z')).toBe(0);
    expect(compareIsoTimes('2026-01-01T00:00:00.0000001Z', '2026-01-01T00:00:00Z')).toBeGreaterThan(
      0,
    );
    expect(
      compareIsoTimes('2026-01-01T00:00:00.123456Z', '2026-01-01T00:00:00.1234561Z'),
    ).toBeLessThan(0);
    expect(compareIsoTimes(T1, T2)).toBeLessThan(0);
  });
});

describe('precedence', () => {
  const index = indexRecords(RECORDS);

  it('highest authority first, then the later event time', () => {
    expect(precedenceFor(index, 'k-gamma', null).eligible.map((r) => r.value)).toEqual([
      'cccc0002',
      'cccc0001',
    ]);
    expect(precedenceFor(index, 'k-delta', null).winner?.value).toBe('dddd0002');
  });

  it('an as-of question keeps eventTime <= cutoff (inclusive) before applying precedence', () => {
    expect(precedenceFor(index, 'k-delta', T3)).toMatchObject({
      winner: { value: 'dddd0001' },
      excludedByCutoff: [{ value: 'dddd0002' }],
    });
    expect(precedenceFor(index, 'k-delta', T5).winner?.value).toBe('dddd0002');
    expect(precedenceFor(index, 'k-beta', T2).winner?.value).toBe('bbbb0001');
    expect(precedenceFor(index, 'k-gamma', T4).winner?.value).toBe('cccc0002');
  });

  it('no eligible record means unknown', () => {
    expect(precedenceFor(index, 'k-eps', T2).winner).toBeNull();
    expect(precedenceFor(index, 'never-recorded', null)).toEqual({
      eligible: [],
      excludedByCutoff: [],
      winner: null,
    });
  });

  it('the winner never loses a pairwise comparison, whatever the record order', () => {
    const record = fc.record({
      key: fc.constant('k'),
      value: fc.constantFrom('00000001', '00000002', '00000003'),
      source: fc.constant('s'),
      eventTime: fc
        .integer({ min: 0, max: 1000 })
        .map((day) => new Date(Date.UTC(2026, 0, 1) + day * 86_400_000).toISOString()),
      authority: fc.constantFrom<1 | 2>(1, 2),
    });
    fc.assert(
      fc.property(
        fc.uniqueArray(record, {
          selector: (r) => `${r.authority}@${r.eventTime}`,
          minLength: 1,
          maxLength: 8,
        }),
        (records: MemoryRecord[]) => {
          const winner = precedenceFor(indexRecords(records), 'k', null).winner as MemoryRecord;
          const reversed = precedenceFor(indexRecords([...records].reverse()), 'k', null).winner;
          expect(reversed).toEqual(winner);
          for (const other of records)
            expect(compareByPrecedence(winner, other)).toBeLessThanOrEqual(0);
        },
      ),
    );
  });
});
