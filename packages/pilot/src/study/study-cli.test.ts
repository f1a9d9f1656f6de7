import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireRunLock } from '@chi/run/internal';
import {
  type RunManifest,
  type RunPlan,
  type StudySessionRecord,
  StudySessionRecordSchema,
  type StudyState,
} from '@chi/spec';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { captureIo } from '../__fixtures__/cli-io';
import { runCli } from '../cli/cli-main';
import { studyPaths } from './study-folder';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'chi-study-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const DAY0 = '2026-09-01T00:00:00.000Z';
const at = (day: number, hours = 0) =>
  new Date(Date.parse(DAY0) + day * 86_400_000 + hours * 3_600_000).toISOString();

/** `chi ...` in process under the frozen clock `CHI_TEST_CLOCK=clock`. */
async function chi(args: readonly string[], clock: string, signal?: AbortSignal) {
  const captured = captureIo({
    cwd: root,
    env: { CHI_TEST_CLOCK: clock },
    ...(signal === undefined ? {} : { signal }),
  });
  const code = await runCli(args, captured.io);
  return { code, out: captured.out(), err: captured.err() };
}

const json = <T>(path: string) => JSON.parse(readFileSync(path, 'utf8')) as T;
const paths = () => studyPaths(join(root, 'st'));
const record = (k: number) =>
  StudySessionRecordSchema.parse(json<StudySessionRecord>(paths().sessionRecord(k)));

/** A three-session study (days 0, 1 and 7), two scripted systems, two worlds, load 32. */
async function initStudy(): Promise<void> {
  const init = await chi(
    [
      'study',
      'init',
      'st',
      '--delays-days',
      '0,1,6',
      '--replicates',
      '2',
      '--primary-session',
      '2',
    ],
    DAY0,
  );
  expect(init.code, init.err).toBe(0);
}

describe('chi study (three sessions on days 0, 1 and 7 under a frozen clock)', () => {
  it('runs each session when due, carries the state exactly, is idempotent and reports', async () => {
    await initStudy();
    const first = await chi(['study', 'run', 'st'], DAY0);
    expect(first.code, first.err).toBe(0);
    expect(first.out).toMatch(/session s0 finished/);
    // Nothing due: exit 0 and the line says when (idempotent: no new folder).
    const again = await chi(['study', 'run', 'st'], at(0, 12));
    expect(again.code).toBe(0);
    expect(again.out).toContain(`session s1 is due at ${at(1)}`);
    expect(existsSync(paths().sessionRun(1))).toBe(false);

    const second = await chi(['study', 'run', 'st'], at(1));
    expect(second.code, second.err).toBe(0);
    // s1 continues s0's state: its manifest links it, its probes read s0's notebooks, no encode.
    const s0State = json<StudyState>(paths().sessionState(0));
    const s1State = json<StudyState>(paths().sessionState(1));
    expect(s1State.notebooks).toEqual(s0State.notebooks);
    expect(Object.keys(s0State.notebooks)).toHaveLength(4);
    const manifest = json<RunManifest>(join(paths().sessionRun(1), 'manifest.json'));
    expect(manifest.study).toMatchObject({
      sessionIndex: 1,
      previousStateSha256: record(0).stateSha256,
      early: false,
    });
    const plan = json<RunPlan>(join(paths().sessionRun(1), 'plan.json'));
    expect(plan.requests.some((request) => request.task === 'memory_encode')).toBe(false);
    expect(plan.requests.length).toBeGreaterThan(0);

    // s2 is due on day 7; --now runs it on day 2 and records that it ran early.
    const early = await chi(['study', 'run', 'st', '--now'], at(2));
    expect(early.code, early.err).toBe(0);
    expect(record(2)).toMatchObject({ early: true, dueAt: at(7) });
    expect(early.out).toMatch(/last session done; report/);
    const done = await chi(['study', 'run', 'st'], at(30));
    expect(done.out).toMatch(/all 3 sessions are done/);

    // The clocks as data: session index, wall-clock time, event count, delay.
    const entries = readFileSync(paths().chis, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(entries).toHaveLength(3 * 2 * 2);
    expect(entries.find((entry) => entry.sessionIndex === 1)).toMatchObject({
      wallClock: at(1),
      eventCount: 1,
      delayDays: 1,
    });
    const status = await chi(['study', 'status', 'st'], at(30));
    expect(status.out).toMatch(/3 of 3 sessions done/);
    expect(status.out).toMatch(/s2 {2}done .*\(early, --now\)/);
    expect(readFileSync(paths().reportMarkdown, 'utf8')).toMatch(/SCRIPTED BASELINE/);
  });

  it('refuses a carried state edited after its session (exit 5), naming the file', async () => {
    await initStudy();
    expect((await chi(['study', 'run', 'st'], DAY0)).code).toBe(0);
    const state = json<StudyState>(paths().sessionState(0));
    const [key] = Object.keys(state.notebooks) as [string];
    state.notebooks[key] = 'remembered nothing';
    writeFileSync(paths().sessionState(0), JSON.stringify(state));
    const refused = await chi(['study', 'run', 'st'], at(1));
    expect(refused.code).toBe(5);
    expect(refused.err).toContain('s0.state.json');
    expect(existsSync(paths().sessionRun(1))).toBe(false);
  });

  it('refuses a previous session whose attempt log was edited (exit 5), naming the log', async () => {
    await initStudy();
    expect((await chi(['study', 'run', 'st'], DAY0)).code).toBe(0);
    const log = join(paths().sessionRun(0), 'attempts.jsonl');
    const text = readFileSync(log, 'utf8');
    // a notebook rewritten inside the log: the state would still match a recomputed state file
    writeFileSync(log, text.replace('#scripted-memory-notes v1', '#scripted-memory-notes v2'));
    expect(readFileSync(log, 'utf8')).not.toBe(text);
    const refused = await chi(['study', 'run', 'st'], at(1));
    expect(refused.code).toBe(5);
    expect(refused.err).toContain('attempts.jsonl');
  });

  it('names a finished session whose status or CHIS log is damaged when reporting (exit 5)', async () => {
    await initStudy();
    expect((await chi(['study', 'run', 'st'], DAY0)).code).toBe(0);
    const status = join(paths().sessionRun(0), 'status.json');
    const text = readFileSync(status, 'utf8');
    writeFileSync(status, text.slice(0, 20));
    const damagedStatus = await chi(['study', 'report', 'st'], DAY0);
    expect(damagedStatus.code).toBe(5);
    expect(damagedStatus.err).toContain('status.json');
    expect(damagedStatus.err).toContain('not JSON');
    writeFileSync(status, text);
    writeFileSync(paths().chis, `${readFileSync(paths().chis, 'utf8')}{"systemId":\n`);
    const damagedLog = await chi(['study', 'report', 'st'], DAY0);
    expect(damagedLog.code).toBe(5);
    expect(damagedLog.err).toMatch(/line \d+/);
  });

  it('refuses a study file edited after it was frozen (exit 5)', async () => {
    await initStudy();
    expect((await chi(['study', 'run', 'st'], DAY0)).code).toBe(0);
    const file = json<{ worldSeeds: { replicates: number } }>(paths().study);
    file.worldSeeds.replicates = 3;
    writeFileSync(paths().study, JSON.stringify(file));
    const refused = await chi(['study', 'run', 'st'], at(1));
    expect(refused.code).toBe(5);
    expect(refused.err).toContain('study.json');
  });

  it('resumes a session that was interrupted before it finished', async () => {
    await initStudy();
    const stopped = new AbortController();
    stopped.abort();
    const interrupted = await chi(['study', 'run', 'st'], DAY0, stopped.signal);
    expect(interrupted.code).toBe(3);
    expect(interrupted.out).toMatch(/did not finish .*resume/);
    expect(existsSync(paths().sessionRecord(0))).toBe(false);
    const resumed = await chi(['study', 'run', 'st'], at(0, 1));
    expect(resumed.code, resumed.err).toBe(0);
    expect(record(0).sessionIndex).toBe(0);
  });

  it('lets one runner write a study at a time (exit 6 while another holds its lock)', async () => {
    await initStudy();
    const lock = acquireRunLock(join(root, 'st'), { command: 'another chi study run' });
    try {
      const refused = await chi(['study', 'run', 'st'], DAY0);
      expect(refused.code).toBe(6);
      expect(refused.err).toContain('another chi study run');
    } finally {
      lock.release();
    }
  });

  it('refuses a bad study file with a typed error naming the field (exit 2)', async () => {
    await initStudy();
    const file = json<Record<string, unknown>>(paths().study);
    file.schedule = [{ afterPreviousDays: 2 }, { afterPreviousDays: 1 }];
    writeFileSync(paths().study, JSON.stringify(file));
    const refused = await chi(['study', 'run', 'st'], DAY0);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('schedule[0].afterPreviousDays: expected 0');
    expect(refused.err).not.toMatch(/\n\s+at /);
    const badFlag = await chi(['study', 'init', 'other', '--loads', '8'], DAY0);
    expect(badFlag.code).toBe(2);
    expect(badFlag.err).toContain('experiments.memory.loads[0]');
  });
});
