import type { StudySessionSchedule } from '@chi/spec';

const DAY_MS = 86_400_000;

/** Where a study stands on its calendar (pure: the schedule, the finished sessions, the time). */
export type StudyCalendar =
  /** Session `index` may start now (`dueAt` is in the past or now). */
  | { readonly kind: 'due'; readonly index: number; readonly dueAt: Date }
  /** Session `index` is next, but not before `dueAt`. */
  | { readonly kind: 'waiting'; readonly index: number; readonly dueAt: Date }
  /** Every session has finished. */
  | { readonly kind: 'complete' };

/**
 * The next session of a study and when it is due: session 0 at once (`studyStart`), session k
 * `schedule[k].afterPreviousDays` days after session k-1 finished. `finishedAt` lists the finish
 * times of the sessions done, in order (session 0 first).
 */
export function studyCalendar(
  schedule: readonly StudySessionSchedule[],
  finishedAt: readonly Date[],
  now: Date,
  studyStart: Date,
): StudyCalendar {
  const index = finishedAt.length;
  const session = schedule[index];
  if (session === undefined) return { kind: 'complete' };
  const previous = index === 0 ? studyStart : (finishedAt[index - 1] as Date);
  // whole milliseconds: a Date holds no less
  const dueAt = new Date(previous.getTime() + Math.round(session.afterPreviousDays * DAY_MS));
  return dueAt.getTime() <= now.getTime()
    ? { kind: 'due', index, dueAt }
    : { kind: 'waiting', index, dueAt };
}

/** Days between two instants (fractional). */
export function daysBetween(from: Date, to: Date): number {
  return (to.getTime() - from.getTime()) / DAY_MS;
}
