import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunFolderDamagedError } from '@chi/spec';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { modelsForManifest } from '../endpoints/system-models';
import { createRun } from '../run-folder/run-create';
import { runPaths } from '../run-folder/run-folder';
import { scriptedSystemSpec } from '../scripted/scripted-systems';
import { defaultOfflineSettings } from '../settings';
import { executeRun } from './run-execute';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'chi-world-digest-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const settings = () =>
  defaultOfflineSettings({
    systems: [scriptedSystemSpec('capacity-keeper')],
    replicates: 1,
    loads: [32],
    history: false,
    behavior: false,
  });

// A run created by this process is checked by the digests of the world files it wrote (issue 38):
// a file changed since must still be read, decoded and refused before anything is sent.
describe('world files of a run this process created', () => {
  it('a world truncated after it was written is refused, naming the file, with nothing sent', async () => {
    const run = await createRun({ settings: settings(), runDir: join(root, 'run') });
    const seed = run.frozen.manifest.worldSeeds[0] as number;
    const world = runPaths(run.runDir).memoryWorld(seed, 32);
    const bytes = readFileSync(world);
    writeFileSync(world, bytes.subarray(0, bytes.length - 9));
    const error = await executeRun({
      runDir: run.runDir,
      models: modelsForManifest(run.frozen.manifest),
    }).catch((caught: unknown) => caught);
    expect(RunFolderDamagedError.isInstance(error)).toBe(true);
    expect(String((error as Error).message)).toContain(world);
    expect(existsSync(runPaths(run.runDir).attempts)).toBe(false);
  });

  it('an untouched run is checked and completes', async () => {
    const run = await createRun({ settings: settings(), runDir: join(root, 'run') });
    const outcome = await executeRun({
      runDir: run.runDir,
      models: modelsForManifest(run.frozen.manifest),
    });
    expect(outcome.state).toBe('completed');
  });
});
