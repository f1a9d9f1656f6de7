import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunStatus } from '@chi/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answersPerRequest, attemptRecords, chiAtFailpoint } from '../__fixtures__/failpoint-cli';
import { memoryScoresOf } from '../__fixtures__/memory-scores';
import { modelsForManifest } from '../endpoints/system-models';
import { createRun } from '../run-folder/run-create';
import { scriptedSystemSpec } from '../scripted/scripted-systems';
import { defaultOfflineSettings } from '../settings';
import { executeRun } from './run-execute';

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

/** Runs `chi`, killed at `failpoint` when one is given (`chiAtFailpoint`). */
function chi(args: readonly string[], failpoint?: string): Promise<number | 'killed'> {
  return chiAtFailpoint(root, args, failpoint);
}

describe('killed after a group of attempt records is durable, before its anchor', () => {
  it('leaves the anchor behind the log (never ahead) and resumes to the uninterrupted scores', async () => {
    const runDir = join(root, 'killed');
    // The second group's anchor: every run has one, since the first group holds before_send
    // records only (a request is sent once its before_send is durable, issue 38) and each
    // after_response waits for an anchor covering it. (Fewer anchors are written than when every
    // before_send waited for its own, so a later count is not reached by every schedule.)
    expect(await chi(['pilot', ...ARGS, '--out', runDir], 'attempts:before-anchor:2')).toBe(
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
    expect(answersPerRequest(runDir).every((count) => count === 1)).toBe(true);
    const status = JSON.parse(readFileSync(join(runDir, 'status.json'), 'utf8')) as RunStatus;
    expect(status).toMatchObject({ state: 'completed', resumes: 1 });
    const head = JSON.parse(readFileSync(join(runDir, 'attempts.head.json'), 'utf8')) as {
      records: number;
    };
    expect(head.records).toBe(attemptRecords(runDir).length);
  });
});
