import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { comparableTime, formatMinute, isoAtMinute, WORLD_EPOCH_ISO } from './event-time';

describe('isoAtMinute and formatMinute', () => {
  it('count whole minutes from 2026-01-01T00:00:00.000Z', () => {
    expect(isoAtMinute(0)).toBe(WORLD_EPOCH_ISO);
    expect(isoAtMinute(1441)).toBe('2026-01-02T00:01:00.000Z');
    expect(formatMinute(59 * 1440 + 754)).toBe('2026-03-01T12:34:00.000Z');
    expect(formatMinute(365 * 1440)).toBe('2027-01-01T00:00:00.000Z');
  });

  it('agree with Date for any minute', () => {
    fc.assert(
      fc.property(fc.nat({ max: 800 * 1440 }), (minute) => {
        const expected = new Date(Date.UTC(2026, 0, 1) + minute * 60_000).toISOString();
        return formatMinute(minute) === expected && isoAtMinute(minute) === expected;
      }),
    );
  });
});

describe('comparableTime', () => {
  it('orders like the instants, for millisecond timestamps', () => {
    fc.assert(
      fc.property(fc.nat({ max: 10 ** 10 }), fc.nat({ max: 10 ** 10 }), (left, right) => {
        const at = (offset: number) => new Date(Date.UTC(2026, 0, 1) + offset).toISOString();
        const order = Math.sign(left - right);
        const compared =
          comparableTime(at(left), 'x') < comparableTime(at(right), 'x')
            ? -1
            : comparableTime(at(left), 'x') > comparableTime(at(right), 'x')
              ? 1
              : 0;
        return order === compared;
      }),
    );
  });

  it('treats trailing zeros of the fraction as insignificant', () => {
    expect(comparableTime('2026-01-01T00:00:00.500Z', 'x')).toBe(
      comparableTime('2026-01-01T00:00:00.5Z', 'x'),
    );
    expect(comparableTime('2026-01-01T00:00:00.000Z', 'x')).toBe(
      comparableTime('2026-01-01T00:00:00Z', 'x'),
    );
    expect(
      comparableTime('2026-01-01T00:00:00.05Z', 'x') <
        comparableTime('2026-01-01T00:00:00.5Z', 'x'),
    ).toBe(true);
  });

  it('rejects offsets and missing seconds, naming the field', () => {
    expect(() => comparableTime('2026-01-01T00:00:00+01:00', 'cutoff')).toThrow(/^cutoff: /);
    expect(() => comparableTime('2026-01-01T00:00Z', 'records[2].eventTime')).toThrow(
      /^records\[2\]\.eventTime: /,
    );
  });
});
