import { InvalidArgumentError } from '@chi/spec';

/** The fixed origin of generated event times: 2026-01-01T00:00:00.000Z. */
export const WORLD_EPOCH_ISO = '2026-01-01T00:00:00.000Z';
const WORLD_EPOCH_MS = Date.UTC(2026, 0, 1);
const MS_PER_MINUTE = 60_000;
const MINUTES_PER_DAY = 1440;

/** `WORLD_EPOCH_ISO` plus whole minutes, as ISO-8601 UTC with milliseconds (`...:00.000Z`). */
export function isoAtMinute(minute: number): string {
  return new Date(WORLD_EPOCH_MS + minute * MS_PER_MINUTE).toISOString();
}

const codesOf = (text: string): number[] => [...text].map((character) => character.charCodeAt(0));

/** Character codes of `HH:MM:00.000Z` for every minute of a day. */
const TIME_OF_DAY_CODES: number[][] = [];
for (let minute = 0; minute < MINUTES_PER_DAY; minute++) {
  const hours = String(Math.floor(minute / 60)).padStart(2, '0');
  const minutes = String(minute % 60).padStart(2, '0');
  TIME_OF_DAY_CODES.push(codesOf(`${hours}:${minutes}:00.000Z`));
}

/**
 * Character codes of `YYYY-MM-DDT` per day after the epoch, computed with `Date` on first use.
 * A memo of a pure function (the calendar), shared by all worlds: at most a few hundred entries.
 */
const DATE_PREFIX_CODES: number[][] = [];
function datePrefixCodes(day: number): number[] {
  while (DATE_PREFIX_CODES.length <= day) {
    DATE_PREFIX_CODES.push(
      codesOf(isoAtMinute(DATE_PREFIX_CODES.length * MINUTES_PER_DAY).slice(0, 11)),
    );
  }
  return DATE_PREFIX_CODES[day] as number[];
}

/**
 * The same text as {@link isoAtMinute} for a non-negative minute, built from tables as one flat
 * string (no `Date` per call): the generator writes one per record, millions for large loads.
 */
export function formatMinute(minute: number): string {
  const day = Math.floor(minute / MINUTES_PER_DAY);
  const date = datePrefixCodes(day);
  const time = TIME_OF_DAY_CODES[minute - day * MINUTES_PER_DAY] as number[];
  return String.fromCharCode(
    date[0] as number,
    date[1] as number,
    date[2] as number,
    date[3] as number,
    date[4] as number,
    date[5] as number,
    date[6] as number,
    date[7] as number,
    date[8] as number,
    date[9] as number,
    date[10] as number,
    time[0] as number,
    time[1] as number,
    time[2] as number,
    time[3] as number,
    time[4] as number,
    time[5] as number,
    time[6] as number,
    time[7] as number,
    time[8] as number,
    time[9] as number,
    time[10] as number,
    time[11] as number,
    time[12] as number,
  );
}

const ISO_UTC = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?Z$/;

/**
 * A string that orders exactly like the instant `iso` names, for any number of fractional
 * digits: the whole-second part, a dot, and the fraction without trailing zeros (so `.5`, `.50`
 * and `.500` compare equal and `.05` sorts before `.5`). Throws `InvalidArgumentError(field)` if
 * `iso` is not `YYYY-MM-DDTHH:MM:SS[.fraction]Z`.
 */
export function comparableTime(iso: string, field: string): string {
  const match = ISO_UTC.exec(iso);
  if (match === null) {
    throw new InvalidArgumentError(
      field,
      `expected an ISO-8601 UTC timestamp like 2026-01-01T00:00:00.000Z, found ${JSON.stringify(iso)}`,
    );
  }
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  return `${match[1]}.${fraction}`;
}
