import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decayedRecall } from '@chi/experiments/internal';
import type { ViewStudyRow } from '@chi/report';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureIo } from '../__fixtures__/cli-io';
import { runCli } from '../cli/cli-main';
import { studyPaths } from './study-folder';
import type { StudyReport } from './study-report';

// Known truth (docs/study-decay.md): fading-notebook keeps a key d days after writing with
// probability 2^(-d/7), so its expected retrieval retention is 1, 0.5 and 0.0625 on days 0, 7, 28;
// perfect keeps everything (retention 1 at every delay).
const HALF_LIFE_DAYS = 7;
const DAY0 = Date.parse('2026-09-01T00:00:00.000Z');
const day = (d: number) => new Date(DAY0 + d * 86_400_000).toISOString();

let root: string;
let report: StudyReport;

async function chi(args: readonly string[], clock: string): Promise<void> {
  const captured = captureIo({ cwd: root, env: { CHI_TEST_CLOCK: clock } });
  const code = await runCli(args, captured.io);
  expect(code, captured.err()).toBe(0);
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'chi-study-decay-'));
  await chi(
    [
      'study',
      'init',
      'st',
      '--systems',
      'perfect,fading-notebook',
      '--delays-days',
      '0,7,21',
      '--replicates',
      '6',
    ],
    day(0),
  );
  await chi(['study', 'run', 'st'], day(0));
  await chi(['study', 'run', 'st'], day(7));
  await chi(['study', 'run', 'st'], day(28));
  report = JSON.parse(readFileSync(studyPaths(join(root, 'st')).report, 'utf8')) as StudyReport;
}, 240_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const row = (systemId: string, session: number) =>
  report.rows.find(
    (entry) => entry.systemId === systemId && entry.sessionIndex === session,
  ) as ViewStudyRow;

describe('retention against delay recovers a known decay (scripted, fading-notebook)', () => {
  it.each([
    [1, 7],
    [2, 28],
  ])('session s%i (day %i): the interval over worlds holds 2^(-d/7)', (session, delayDays) => {
    const truth = decayedRecall(delayDays, HALF_LIFE_DAYS);
    const estimate = row('fading-notebook', session).retrievalRetention;
    expect(row('fading-notebook', session).delayDays).toBe(delayDays);
    expect(estimate.interval?.lower).toBeLessThanOrEqual(truth);
    expect(estimate.interval?.upper).toBeGreaterThanOrEqual(truth);
    // and it sees the decay: no retention of 1 is in its interval
    expect(estimate.interval?.upper).toBeLessThan(1);
  });

  it('the system without decay (perfect) shows none: retention 1 at every delay, excluding the decay', () => {
    for (const session of [1, 2]) {
      const estimate = row('perfect', session).retrievalRetention;
      expect(estimate.estimate).toBe(1);
      expect(estimate.interval?.lower).toBeGreaterThan(decayedRecall(7, HALF_LIFE_DAYS));
    }
  });
});
