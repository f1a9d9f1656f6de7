import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunManifest, StudySessionRecord } from '@chi/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureIo } from '../__fixtures__/cli-io';
import { runCli } from '../cli/cli-main';
import { studyPaths } from './study-folder';
import type { StudyReport } from './study-report';

const DAY0 = Date.parse('2026-09-01T00:00:00.000Z');
const day = (d: number) => new Date(DAY0 + d * 86_400_000).toISOString();
const json = <T>(path: string) => JSON.parse(readFileSync(path, 'utf8')) as T;

let root: string;
const parent = () => studyPaths(join(root, 'st'));
const cohort = () => studyPaths(join(root, 'st', 'cohorts', 'latest-wins'));

async function chi(args: readonly string[], clock: string) {
  const captured = captureIo({ cwd: root, env: { CHI_TEST_CLOCK: clock } });
  const code = await runCli(args, captured.io);
  return { code, out: captured.out(), err: captured.err() };
}
async function ok(args: readonly string[], clock: string) {
  const result = await chi(args, clock);
  expect(result.code, result.err).toBe(0);
  return result;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'chi-study-cohort-'));
  await ok(
    ['study', 'init', 'st', '--systems', 'perfect', '--replicates', '2', '--delays-days', '0,1'],
    day(0),
  );
  // not started: a system is added to study.json itself, not as a cohort
  expect((await chi(['study', 'add', 'st', '--systems', 'latest-wins'], day(0))).code).toBe(2);
  await ok(['study', 'run', 'st'], day(0));
  await ok(['study', 'run', 'st'], day(1));
  // the study gains latest-wins on day 3, after its first sessions
  await ok(['study', 'add', 'st', '--systems', 'latest-wins'], day(3));
  await ok(['study', 'run', join('st', 'cohorts', 'latest-wins')], day(3));
  // its own schedule: s1 is due a day after its own s0, not the parent's
  const early = await ok(['study', 'run', join('st', 'cohorts', 'latest-wins')], day(3.5));
  expect(early.out).toContain(`session s1 is due at ${day(4)}`);
  await ok(['study', 'run', join('st', 'cohorts', 'latest-wins')], day(4));
  await ok(['study', 'report', 'st'], day(5));
}, 300_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('chi study add: a system added after the first session', () => {
  it('runs the same world seeds, loads and schedule from its own day 0', () => {
    const study = json<{ worldSeeds: unknown; schedule: unknown; systems: string[] }>(
      cohort().study,
    );
    const original = json<{ worldSeeds: unknown; schedule: unknown }>(parent().study);
    expect(study.systems).toEqual(['latest-wins']);
    expect(study.worldSeeds).toEqual(original.worldSeeds);
    expect(study.schedule).toEqual(original.schedule);
    const seeds = (paths: ReturnType<typeof studyPaths>) =>
      json<RunManifest>(join(paths.sessionRun(0), 'manifest.json')).worldSeeds;
    expect(seeds(cohort())).toEqual(seeds(parent()));
    expect(json<StudySessionRecord>(cohort().sessionRecord(0)).dueAt).toBe(day(3));
    expect(json<StudySessionRecord>(cohort().sessionRecord(1)).dueAt).toBe(day(4));
  });

  it('refuses a system the study already runs (exit 2)', async () => {
    const again = await chi(['study', 'add', 'st', '--systems', 'latest-wins'], day(6));
    expect(again.code).toBe(2);
    expect(again.err).toContain('latest-wins already in the study');
  });

  it("the parent's report pairs it with the original systems by world, per session", () => {
    const report = json<StudyReport>(parent().report);
    expect(report.cohorts).toEqual([
      expect.objectContaining({ systems: ['latest-wins'], sessionsDone: 2 }),
    ]);
    const rows = report.cohortComparisons ?? [];
    expect(rows.map((row) => [row.systemId, row.versus, row.sessionIndex, row.worlds])).toEqual([
      ['latest-wins', 'perfect', 0, 2],
      ['latest-wins', 'perfect', 1, 2],
    ]);
    // latest-wins forgets superseded values that perfect keeps: a lower Q_M in both sessions
    for (const row of rows) expect(row.difference.estimate).toBeLessThan(0);
    expect(readFileSync(parent().reportMarkdown, 'utf8')).toContain('## Systems added later');
  });

  it('chi verify recomputes the study with its cohort', async () => {
    const verified = await chi(['verify', parent().dir], day(6));
    expect(verified.code, verified.err).toBe(0);
  });

  it('the report puts the sessions on a time axis with completeness, spend and the CHIS trajectory', () => {
    const report = json<StudyReport>(parent().report);
    expect(
      report.sessions.map((row) => [row.sessionIndex, row.day, row.blocksComplete === row.blocks]),
    ).toEqual([
      [0, 0, true],
      [1, 1, true],
    ]);
    const markdown = readFileSync(parent().reportMarkdown, 'utf8');
    expect(markdown).toContain('## Sessions (time axis');
    expect(markdown).toMatch(/\| s1 \| 1\.00 \| .* \| no \| (\d+) of \1 \| 0\.0000 of 0\.0000 \|/);
    expect(markdown).toMatch(
      /- perfect, load 32: s0 \(day 0\.00\) [\d.]+ → s1 \(day 1\.00\) [\d.]+/,
    );
  });

  it('chi view STUDY_DIR serves its sessions in order, each browsable', async () => {
    let stop: () => void = () => {};
    let announced: (url: string) => void = () => {};
    const url = new Promise<string>((resolve) => {
      announced = resolve;
    });
    const served = captureIo({
      cwd: root,
      untilStopped: new Promise<void>((resolve) => {
        stop = resolve;
      }),
    });
    const exit = runCli(['view', 'st', '--port', '0'], {
      ...served.io,
      stdout: { write: (text: string) => announced(text.trim()) },
    });
    const base = await url;
    try {
      const index = await (await fetch(new URL('/', base))).text();
      const links = [...index.matchAll(/data-testid="run-link" href="run\/([^/]+)\//g)].map(
        (m) => m[1],
      );
      expect(links).toEqual(['s0', 's1']);
      expect((await fetch(new URL('/run/s1/', base))).status).toBe(200);
    } finally {
      stop();
    }
    expect(await exit).toBe(0);
    expect(served.err()).toContain('2 session(s); its report:');
  });
});
