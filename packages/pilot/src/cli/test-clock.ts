import { UsageError } from './usage-error';

/** The environment variable that freezes `chi`'s clock: for tests only (docs/development.md). */
export const TEST_CLOCK_ENV = 'CHI_TEST_CLOCK';

/**
 * The frozen clock `CHI_TEST_CLOCK=<ISO-8601 instant>` asks for (every reading returns that
 * instant), or undefined when it is unset. For tests only: process tests that compare published
 * bytes across processes (shards) and tests that move a study's calendar; a real run never sets
 * it.
 *
 * @throws UsageError naming the variable for a value that is not an ISO-8601 instant
 */
export function testClockFrom(
  env: Readonly<Record<string, string | undefined>>,
): (() => Date) | undefined {
  const text = env[TEST_CLOCK_ENV];
  if (text === undefined || text === '') return undefined;
  const instant = new Date(text);
  if (!/^\d{4}-\d\d-\d\dT/.test(text) || Number.isNaN(instant.getTime()))
    throw new UsageError(
      `${TEST_CLOCK_ENV}: expected an ISO-8601 instant such as 2026-09-01T00:00:00Z, found ${JSON.stringify(text)}`,
    );
  return () => new Date(instant.getTime());
}
