import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AttemptRecord, RunStatus } from '@chi/spec';
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
const SYSTEMS = ['capacity-keeper', 'abstainer'];
const SEED = 777;
const ARGS = [
  '--systems',
  SYSTEMS.join(','),
  '--replicates',
  '1',
  '--loads',
  '32',
  '--no-history',
  '--no-behavior',
  '--seed',
  String(SEED),
  '--resamples',
  '20',
  '--concurrency',
  '2',
];

let root: string;
let reference: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'chi-crash-'));
  const run = await createRun({
    settings: defaultOfflineSettings({
      systems: SYSTEMS.map((name) => scriptedSystemSpec(name)),
      replicates: 1,
      loads: [32],
      history: false,
      behavior: false,
      rootSeed: SEED,
      resamples: 20,
      concurrency: 2,
    }),
    runDir: join(root, 'reference'),
  });
  reference = run.runDir;
  await executeRun({ runDir: reference, models: modelsForManifest(run.frozen.manifest) });
  await finishRun(reference);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/**
 * Runs `chi` in a child process. With a failpoint, the child stops at exactly that point (it
 * writes a marker file and waits), is killed there with SIGKILL, and this resolves to 'killed';
 * reaching no failpoint, it resolves to the exit code.
 */
async function chi(args: readonly string[], failpoint?: string): Promise<number | 'killed'> {
  const marker = join(root, `marker-${Math.random().toString(16).slice(2)}`);
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
    env: {
      ...process.env,
      TSX_TSCONFIG_PATH: TSCONFIG,
      CHI_FAILPOINT: failpoint ?? '',
      CHI_FAILPOINT_MARKER: marker,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const done = exited(child);
  if (failpoint === undefined) return (await done) ?? -1;
  // Waits for the event "the child is at the failpoint" (or its exit, which fails the test).
  for (;;) {
    const state = await Promise.race([
      done.then(() => 'exit' as const),
      new Promise<'tick'>((resolve) => setTimeout(() => resolve('tick'), 10)),
    ]);
    if (state === 'exit')
      throw new Error(`chi ${args.join(' ')} exited before reaching ${failpoint}: ${stderr}`);
    if (existsSync(marker)) {
      child.kill('SIGKILL');
      await done;
      return 'killed';
    }
  }
}

function scoreFiles(releaseDir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(join(releaseDir, 'scores')).sort())
    out[name] = readFileSync(join(releaseDir, 'scores', name), 'utf8');
  return out;
}

describe('chi killed at chosen points, including while writing the release', () => {
  it('always resumes to the uninterrupted scores, sending no answered request twice', async () => {
    const runDir = join(root, 'killed');
    // Kill points from a fixed linear congruential sequence: reproducible, and different points
    // of the run each time.
    let state = 20261201;
    const pick = (range: number) => {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      return 1 + (state % range);
    };
    expect(await chi(['pilot', ...ARGS, '--out', runDir], `pilot:in-flight:${pick(4)}`)).toBe(
      'killed',
    );
    expect(await chi(['pilot', '--resume', runDir], `pilot:in-flight:${pick(4)}`)).toBe('killed');
    // the release: killed after some of its files, then just before it is renamed into place
    expect(await chi(['pilot', '--resume', runDir], `release:file:${pick(40)}`)).toBe('killed');
    expect(existsSync(join(runDir, 'release'))).toBe(false);
    expect(await chi(['pilot', '--resume', runDir], 'release:before-rename:1')).toBe('killed');
    expect(await chi(['score', runDir])).toBe(0);
    // replacing that release: killed with the old one moved aside and the new one not in place
    expect(await chi(['score', runDir], 'release:between-renames:1')).toBe('killed');
    expect(existsSync(join(runDir, 'release'))).toBe(false);
    expect(await chi(['pilot', '--resume', runDir])).toBe(0);

    expect(readdirSync(runDir).filter((name) => name.startsWith('.release'))).toEqual([]);
    expect(await chi(['verify', join(runDir, 'release')])).toBe(0);
    expect(scoreFiles(join(runDir, 'release'))).toEqual(scoreFiles(join(reference, 'release')));
    expect(memoryScoresOf(runDir)).toEqual(memoryScoresOf(reference));
    const answered = new Map<string, number>();
    for (const line of readFileSync(join(runDir, 'attempts.jsonl'), 'utf8').split('\n')) {
      if (line === '') continue;
      const record = JSON.parse(line) as AttemptRecord;
      if (record.phase === 'after_response')
        answered.set(record.requestId, (answered.get(record.requestId) ?? 0) + 1);
    }
    expect([...answered.values()].every((count) => count === 1)).toBe(true);
    const status = JSON.parse(readFileSync(join(runDir, 'status.json'), 'utf8')) as RunStatus;
    // four resumes, three of them killed (chi score is not a resume)
    expect(status).toMatchObject({ state: 'completed', exitCode: 0, resumes: 4 });
  });
});
