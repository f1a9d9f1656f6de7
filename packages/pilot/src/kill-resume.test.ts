import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AttemptRecord } from '@chi/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryScoresOf } from './__fixtures__/memory-scores';
import { finishRun } from './pilot';
import { createRun } from './run-create';
import { executeRun } from './run-execute';
import { scriptedSystemSpec } from './scripted-systems';
import { defaultOfflineSettings } from './settings';
import { modelsForManifest } from './system-models';

const CLI = fileURLToPath(new URL('./cli.ts', import.meta.url));
const TSCONFIG = fileURLToPath(new URL('../tsconfig.json', import.meta.url));
const SYSTEMS = ['capacity-keeper', 'latest-wins', 'abstainer'];
const ARGS = [
  '--systems',
  SYSTEMS.join(','),
  '--replicates',
  '2',
  '--loads',
  '32,64',
  '--seed',
  '4242',
  '--concurrency',
  '4',
];

let root: string;
let reference: string;

function runCliChild(args: readonly string[]): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
    env: { ...process.env, TSX_TSCONFIG_PATH: TSCONFIG },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

function attemptLines(runDir: string): number {
  const path = join(runDir, 'attempts.jsonl');
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').length - 1 : 0;
}

/** Kills the child with SIGKILL once the attempt log has at least `lines` lines (or it exits). */
async function killAfter(
  child: ChildProcess,
  runDir: string,
  lines: number,
): Promise<'killed' | 'finished'> {
  const done = exited(child);
  for (;;) {
    const state = await Promise.race([
      done.then(() => 'exit' as const),
      new Promise<'tick'>((resolve) => setTimeout(() => resolve('tick'), 5)),
    ]);
    if (state === 'exit') return 'finished';
    if (attemptLines(runDir) >= lines) {
      child.kill('SIGKILL');
      await done;
      return 'killed';
    }
  }
}

const finalTexts = (runDir: string) => {
  const texts = new Map<string, string | null>();
  const afterCount = new Map<string, number>();
  for (const line of readFileSync(join(runDir, 'attempts.jsonl'), 'utf8').split('\n')) {
    if (line === '') continue;
    let record: AttemptRecord;
    try {
      record = JSON.parse(line) as AttemptRecord;
    } catch {
      continue; // a torn final line
    }
    if (record.phase === 'after_response') {
      texts.set(record.requestId, record.result?.text ?? null);
      afterCount.set(record.requestId, (afterCount.get(record.requestId) ?? 0) + 1);
    }
  }
  return { texts, afterCount };
};

function scoreFiles(releaseDir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(join(releaseDir, 'scores')).sort())
    out[name] = readFileSync(join(releaseDir, 'scores', name), 'utf8');
  return out;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'chi-kill-'));
  const run = await createRun({
    settings: defaultOfflineSettings({
      systems: SYSTEMS.map((name) => scriptedSystemSpec(name)),
      replicates: 2,
      loads: [32, 64],
      rootSeed: 4242,
      concurrency: 4,
    }),
    runDir: join(root, 'reference'),
  });
  reference = run.runDir;
  await executeRun({ runDir: reference, models: modelsForManifest(run.frozen.manifest) });
  await finishRun(reference);
}, 120_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('chi pilot killed at random points and resumed', () => {
  it('ends with the same scores as an uninterrupted run, sending no resolved request twice', async () => {
    const referenceTexts = finalTexts(reference).texts;
    const totalLines = 2 * referenceTexts.size;
    // A fixed pseudo-random sequence of kill points (a linear congruential generator), so the test
    // is reproducible; each session is killed after a random number of attempt-log lines.
    let state = 20260901;
    const nextKillAt = (from: number) => {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      return from + 1 + (state % Math.max(1, Math.floor((totalLines - from) * 0.6)));
    };
    const runDir = join(root, 'killed');
    let kills = 0;
    let child = runCliChild(['pilot', ...ARGS, '--out', runDir]);
    let outcome = await killAfter(child, runDir, nextKillAt(0));
    if (outcome === 'killed') kills += 1;
    let sessions = 1;
    while (outcome === 'killed' && sessions < 12) {
      expect(existsSync(join(runDir, 'manifest.json'))).toBe(true);
      const resumeAt = nextKillAt(attemptLines(runDir));
      child = runCliChild(['pilot', '--resume', runDir]);
      sessions += 1;
      outcome =
        sessions < 4
          ? await killAfter(child, runDir, resumeAt)
          : await exited(child).then(() => 'finished' as const);
      if (outcome === 'killed') kills += 1;
    }
    expect(kills).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(readFileSync(join(runDir, 'status.json'), 'utf8'))).toMatchObject({
      state: 'completed',
      exitCode: 0,
    });

    // the kills caught requests in flight: they were recorded as abandoned and sent again
    const abandoned = readFileSync(join(runDir, 'attempts.jsonl'), 'utf8')
      .split('\n')
      .filter((line) => line.includes('"phase":"abandoned"'));
    expect(abandoned.length).toBeGreaterThanOrEqual(1);
    const { texts, afterCount } = finalTexts(runDir);
    expect(texts).toEqual(referenceTexts);
    expect([...afterCount.values()].every((count) => count === 1)).toBe(true);
    expect(memoryScoresOf(runDir)).toEqual(memoryScoresOf(reference));
    expect(statSync(join(runDir, 'release', 'SHA256SUMS')).isFile()).toBe(true);
    expect(scoreFiles(join(runDir, 'release'))).toEqual(scoreFiles(join(reference, 'release')));
  }, 240_000);
});
