import { join } from 'node:path';
import { expect } from 'vitest';
import { runCli } from '../cli/cli-main';
import { captureIo } from './cli-io';

/** Day 0 of {@link threeSessionStudy}. */
export const STUDY_DAY0 = '2026-09-01T00:00:00.000Z';

/** The instant `day` days (and `hours` hours) after {@link STUDY_DAY0}, as ISO-8601. */
export const studyDay = (day: number, hours = 0): string =>
  new Date(Date.parse(STUDY_DAY0) + day * 86_400_000 + hours * 3_600_000).toISOString();

/** `chi ...` in process in `root` under the frozen clock `CHI_TEST_CLOCK=clock`; its stdout. */
export async function chiAt(root: string, args: readonly string[], clock: string): Promise<string> {
  const captured = captureIo({ cwd: root, env: { CHI_TEST_CLOCK: clock } });
  const code = await runCli(args, captured.io);
  expect(code, captured.err()).toBe(0);
  return captured.out();
}

/**
 * A three-session scripted study `ROOT/st` (days 0, 1 and 7, two systems, two worlds, as
 * study-cli.test.ts builds one) under the injected clock: s0 run on day 0, s1 run early
 * (`--now`) at 12:00 on day 0 though due on day 1, s2 not run (due six days after s1 finished,
 * 2026-09-07 12:00). With `report`, `chi study report` is run on day 1. Returns the study folder.
 */
export async function threeSessionStudy(root: string, report: boolean): Promise<string> {
  await chiAt(
    root,
    ['study', 'init', 'st', '--delays-days', '0,1,6', '--replicates', '2', '--primary-session', '2'],
    STUDY_DAY0,
  );
  await chiAt(root, ['study', 'run', 'st'], STUDY_DAY0);
  await chiAt(root, ['study', 'run', 'st', '--now'], studyDay(0, 12));
  if (report) await chiAt(root, ['study', 'report', 'st'], studyDay(1));
  return join(root, 'st');
}
