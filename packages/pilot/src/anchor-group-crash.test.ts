import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AttemptRecord, RunStatus } from '@chi/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryScoresOf } from './__fixtures__/memory-scores';
import { createRun } from './run-create';
import { executeRun } from './run-execute';
import { scriptedSystemSpec } from './scripted-systems';
import { defaultOfflineSettings } from './settings';
import { modelsForManifest } from './system-models';

const CLI = fileURLToPath(new URL('./cli.ts', import.meta.url));
const TSCONFIG = fileURLToPath(new URL('../tsconfig.json', import.meta.url));
const SYSTEMS = ['capacity-keeper', 'abstainer'];
const SEED = 4242;
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
  '4',
  '--no-release',
];

let root: string;
let reference: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'chi-anchor-crash-'));
  const run = await createRun({
    settings: defaultOfflineSettings({
      systems: SYSTEMS.map((name) => scriptedSystemSpec(name)),
      replicates: 1,
      loads: [32],
      history: false,
      behavior: false,
      rootSeed: SEED,
      resamples: 20,
      concurrency: 4,
    }),
    runDir: join(root, 'reference'),
  });
  reference = run.runDir;
  await executeRun({ runDir: reference, models: modelsForManifest(run.frozen.manifest) });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Runs `chi`; with a failpoint, kills it (SIGKILL) once it waits there and resolves 'killed'. */
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
  const done = new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (failpoint === undefined) return (await done) ?? -1;
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

function attemptRecords(runDir: string): AttemptRecord[] {
  return readFileSync(join(runDir, 'attempts.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as AttemptRecord);
}

describe('killed after a group of attempt records is durable, before its anchor', () => {
  it('leaves the anchor behind the log (never ahead) and resumes to the uninterrupted scores', async () => {
    const runDir = join(root, 'killed');
    expect(await chi(['pilot', ...ARGS, '--out', runDir], 'attempts:before-anchor:6')).toBe(
      'killed',
    );
    const logged = attemptRecords(runDir);
    const anchor = JSON.parse(readFileSync(join(runDir, 'attempts.head.json'), 'utf8')) as {
      records: number;
    };
    // The group the kill interrupted is in the log and not yet in the anchor.
    expect(anchor.records).toBeLessThan(logged.length);
    expect(anchor.records).toBeGreaterThan(0);
    expect(await chi(['pilot', '--resume', runDir])).toBe(0);
    expect(memoryScoresOf(runDir)).toEqual(memoryScoresOf(reference));
    const answered = new Map<string, number>();
    for (const record of attemptRecords(runDir))
      if (record.phase === 'after_response')
        answered.set(record.requestId, (answered.get(record.requestId) ?? 0) + 1);
    expect([...answered.values()].every((count) => count === 1)).toBe(true);
    const status = JSON.parse(readFileSync(join(runDir, 'status.json'), 'utf8')) as RunStatus;
    expect(status).toMatchObject({ state: 'completed', resumes: 1 });
    const head = JSON.parse(readFileSync(join(runDir, 'attempts.head.json'), 'utf8')) as {
      records: number;
    };
    expect(head.records).toBe(attemptRecords(runDir).length);
  });
});
