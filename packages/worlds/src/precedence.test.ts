import { InvalidArgumentError, type MemoryRecord } from '@chi/spec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { indexRecords, resolveAsOf, resolveCurrent } from './precedence';

const record = (
  key: string,
  value: string,
  source: string,
  eventTime: string,
  authority: 1 | 2,
): MemoryRecord => ({ key, value, source, eventTime, authority });

// One key with the whole precedence story: an original, an authoritative update, and a later
// lower-authority conflict; plus an unrelated key.
const records: MemoryRecord[] = [
  record('k1', '00000001', 'src-a', '2026-01-10T00:00:00.000Z', 1),
  record('k2', '0000000f', 'src-z', '2026-01-01T00:00:00.000Z', 1),
  record('k1', '00000002', 'src-b', '2026-02-10T00:00:00.000Z', 2),
  record('k1', '00000003', 'src-c', '2026-03-10T00:00:00.000Z', 1),
];

describe('resolveCurrent', () => {
  it('lets authority 2 beat a later authority-1 record (the conflict does not win)', () => {
    expect(resolveCurrent(records, 'k1')).toEqual({
      value: '00000002',
      source: 'src-b',
      recordIndex: 2,
    });
  });

  it('lets the later record win within one authority', () => {
    const sameAuthority = [
      record('k', 'aaaaaaaa', 's1', '2026-01-02T00:00:00.000Z', 2),
      record('k', 'bbbbbbbb', 's2', '2026-01-03T00:00:00.000Z', 2),
      record('k', 'cccccccc', 's3', '2026-01-01T00:00:00.000Z', 2),
    ];
    expect(resolveCurrent(sameAuthority, 'k')).toEqual({
      value: 'bbbbbbbb',
      source: 's2',
      recordIndex: 1,
    });
  });

  it('answers unknown (value and source null) for a key never recorded', () => {
    expect(resolveCurrent(records, 'k3')).toEqual({ value: null, source: null, recordIndex: null });
  });

  it('refuses an equal-authority equal-time tie at the top, naming both records', () => {
    const tied = [
      record('k', 'aaaaaaaa', 's1', '2026-01-02T00:00:00.000Z', 1),
      record('k', 'bbbbbbbb', 's2', '2026-01-02T00:00:00Z', 1),
    ];
    expect(() => resolveCurrent(tied, 'k')).toThrow(InvalidArgumentError);
    expect(() => resolveCurrent(tied, 'k')).toThrow(/records\[0\] and records\[1\]/);
  });

  it('ignores a tie that an authority-2 record outranks', () => {
    const outranked = [
      record('k', 'aaaaaaaa', 's1', '2026-01-02T00:00:00.000Z', 1),
      record('k', 'bbbbbbbb', 's2', '2026-01-02T00:00:00.000Z', 1),
      record('k', 'cccccccc', 's3', '2026-01-01T00:00:00.000Z', 2),
    ];
    expect(resolveCurrent(outranked, 'k').value).toBe('cccccccc');
  });

  it('compares times exactly whatever the number of fractional digits', () => {
    const fractions = [
      record('k', 'aaaaaaaa', 's1', '2026-01-02T00:00:00.5Z', 1),
      record('k', 'bbbbbbbb', 's2', '2026-01-02T00:00:00.05Z', 1),
      record('k', 'cccccccc', 's3', '2026-01-02T00:00:00Z', 1),
    ];
    expect(resolveCurrent(fractions, 'k').value).toBe('aaaaaaaa');
    expect(resolveAsOf(fractions, 'k', '2026-01-02T00:00:00.499999Z').value).toBe('bbbbbbbb');
  });

  it('names the field of a malformed time or authority', () => {
    expect(() =>
      resolveCurrent([record('k', 'aaaaaaaa', 's', '2026-01-02 00:00', 1)], 'k'),
    ).toThrow(/records\[0\]\.eventTime: expected an ISO-8601 UTC timestamp/);
    const bad = {
      ...record('k', 'aaaaaaaa', 's', '2026-01-02T00:00:00Z', 1),
      authority: 3,
    } as unknown as MemoryRecord;
    expect(() => resolveCurrent([bad], 'k')).toThrow(
      /records\[0\]\.authority: expected 1 or 2, found 3/,
    );
  });
});

describe('resolveAsOf', () => {
  it('keeps only records up to the cutoff, then applies precedence', () => {
    expect(resolveAsOf(records, 'k1', '2026-02-01T00:00:00.000Z').value).toBe('00000001');
    expect(resolveAsOf(records, 'k1', '2026-03-01T00:00:00.000Z').value).toBe('00000002');
    expect(resolveAsOf(records, 'k1', '2026-04-01T00:00:00.000Z').value).toBe('00000002');
  });

  it('includes a record dated exactly at the cutoff (eventTime <= cutoff)', () => {
    expect(resolveAsOf(records, 'k1', '2026-02-10T00:00:00.000Z').value).toBe('00000002');
    expect(resolveAsOf(records, 'k1', '2026-02-09T23:59:59.999Z').value).toBe('00000001');
  });

  it('answers unknown before the first record of the key', () => {
    expect(resolveAsOf(records, 'k1', '2026-01-09T00:00:00.000Z')).toEqual({
      value: null,
      source: null,
      recordIndex: null,
    });
  });

  it('names the cutoff when it is malformed', () => {
    expect(() => resolveAsOf(records, 'k1', 'yesterday')).toThrow(
      /^cutoff: expected an ISO-8601 UTC timestamp/,
    );
  });
});

const arbitraryRecords = fc
  .uniqueArray(
    fc.record({
      key: fc.constantFrom('a', 'b', 'c', 'd'),
      authority: fc.constantFrom(1 as const, 2 as const),
      minute: fc.nat({ max: 500 }),
      value: fc.nat({ max: 0xffffffff }).map((value) => value.toString(16).padStart(8, '0')),
      source: fc.constantFrom('s1', 's2', 's3'),
    }),
    // Generated worlds never hold equal-authority equal-time records of one key.
    { selector: (draft) => `${draft.key}|${draft.authority}|${draft.minute}`, maxLength: 40 },
  )
  .map((drafts) =>
    drafts.map((draft) =>
      record(
        draft.key,
        draft.value,
        draft.source,
        new Date(Date.UTC(2026, 0, 1) + draft.minute * 60_000).toISOString(),
        draft.authority,
      ),
    ),
  );

describe('indexRecords', () => {
  it('answers exactly like resolveCurrent and resolveAsOf, for every key and cutoff', () => {
    fc.assert(
      fc.property(arbitraryRecords, fc.nat({ max: 520 }), (list, cutoffMinute) => {
        const index = indexRecords(list);
        const cutoff = new Date(Date.UTC(2026, 0, 1) + cutoffMinute * 60_000).toISOString();
        return ['a', 'b', 'c', 'd', 'e'].every(
          (key) =>
            JSON.stringify(index.resolve(key, null)) ===
              JSON.stringify(resolveCurrent(list, key)) &&
            JSON.stringify(index.resolveAsOf(key, cutoff)) ===
              JSON.stringify(resolveAsOf(list, key, cutoff)) &&
            index.has(key) === list.some((entry) => entry.key === key),
        );
      }),
    );
  });

  it('picks the same winning record whatever the record order', () => {
    fc.assert(
      fc.property(arbitraryRecords, (list) => {
        const reversed = [...list].reverse();
        return ['a', 'b', 'c', 'd'].every((key) => {
          const forward = resolveCurrent(list, key);
          const backward = resolveCurrent(reversed, key);
          return forward.value === backward.value && forward.source === backward.source;
        });
      }),
    );
  });

  it('counts distinct keys', () => {
    expect(indexRecords(records).keyCount).toBe(2);
  });
});
