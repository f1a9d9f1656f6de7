import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { studyCalendar } from './study-schedule';

const DAY_MS = 86_400_000;
const START = new Date('2026-09-01T00:00:00Z');

describe('studyCalendar (property)', () => {
  it('session k is due exactly afterPreviousDays after session k-1 finished, never before', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 60 * 1440 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.double({ min: 0, max: 5, noNaN: true }), { maxLength: 8 }),
        fc.double({ min: -100, max: 100, noNaN: true }),
        (laterDelays, runtimes, offsetDays) => {
          // delays in whole minutes, declared in days
          const schedule = [0, ...laterDelays].map((minutes) => ({
            afterPreviousDays: minutes / 1440,
          }));
          // sessions finished some time after each became due
          const finishedAt: Date[] = [];
          let previous = START.getTime();
          for (const [k, runtime] of runtimes.slice(0, schedule.length).entries()) {
            const due = previous + ([0, ...laterDelays][k] ?? 0) * 60_000;
            previous = due + Math.round(runtime * DAY_MS);
            finishedAt.push(new Date(previous));
          }
          const calendar = studyCalendar(schedule, finishedAt, START, START);
          if (finishedAt.length === schedule.length) {
            expect(calendar.kind).toBe('complete');
            return;
          }
          const k = finishedAt.length;
          const expectedDue =
            previousFinish(finishedAt, k) + (schedule[k]?.afterPreviousDays ?? 0) * DAY_MS;
          const now = new Date(expectedDue + offsetDays * DAY_MS);
          const at = studyCalendar(schedule, finishedAt, now, START);
          expect(at.kind === 'complete' ? null : at.index).toBe(k);
          if (at.kind === 'complete') return;
          expect(at.dueAt.getTime()).toBe(expectedDue);
          expect(at.kind).toBe(now.getTime() >= expectedDue ? 'due' : 'waiting');
        },
      ),
    );
  });

  it('the first session is due at the study start', () => {
    const calendar = studyCalendar(
      [{ afterPreviousDays: 0 }, { afterPreviousDays: 7 }],
      [],
      START,
      START,
    );
    expect(calendar).toEqual({ kind: 'due', index: 0, dueAt: START });
  });
});

function previousFinish(finishedAt: readonly Date[], k: number): number {
  return k === 0 ? START.getTime() : (finishedAt[k - 1] as Date).getTime();
}
