import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunStatus } from '@chi/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answersPerRequest, chiAtFailpoint } from '../__fixtures__/failpoint-cli';
import { memoryScoresOf } from '../__fixtures__/memory-scores';
import { modelsForManifest } from '../endpoints/system-models';
import { finishRun } from '../pilot';
import { createRun } from '../run-folder/run-create';
import { scriptedSystemSpec } from '../scripted/scripted-systems';
import { defaultOfflineSettings } from '../settings';
import { executeRun } from './run-execute';

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

/** Runs `chi`, killed at `failpoint` when one is given (`chiAtFailpoint`). */
function chi(args: readonly string[], failpoint?: string): Promise<number | 'killed'> {
  return chiAtFailpoint(root, args, failpoint);
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
    expect(answersPerRequest(runDir).every((count) => count === 1)).toBe(true);
    const status = JSON.parse(readFileSync(join(runDir, 'status.json'), 'utf8')) as RunStatus;
    // four resumes, three of them killed (chi score is not a resume)
    expect(status).toMatchObject({ state: 'completed', exitCode: 0, resumes: 4 });
  });
});
