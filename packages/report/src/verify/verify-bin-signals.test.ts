import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeArgsFor } from '../../../../tooling/vitest/child-bundle';
import { startNode } from '../../../../tooling/vitest/child-process';
import { buildFixtureRun } from '../__fixtures__/fixture-run';
import { tempDir } from '../__fixtures__/temp-dir';
import { writeRelease } from '../release/write-release';

// The release's own verifier (`node code/verify.mjs RELEASE`, verify-bin.ts) under the house rule
// "every protocol stops on one Ctrl-C": exit 130 and nothing left behind. It used to keep Node's
// default, a death by SIGINT, which skips the exit handler that removes the recomputation's
// temporary folder: the folder stayed in TMPDIR. The child is held at the failpoint `verify:spill`
// (that folder made, nothing checked yet), so the signal lands there by construction.
describe('one Ctrl-C of the bundled verifier', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let release: string;
  beforeAll(async () => {
    dir = await tempDir('verify-bin-signals');
    await buildFixtureRun(join(dir.path, 'run'));
    release = join(dir.path, 'release');
    await writeRelease({ runDir: join(dir.path, 'run'), outDir: release });
  });
  afterAll(async () => dir.remove());

  it('quits with exit 130 and removes its temporary folder', async () => {
    const tmp = join(dir.path, 'tmp');
    await mkdir(tmp);
    const marker = join(dir.path, 'marker');
    const verifier = await nodeArgsFor(join(import.meta.dirname, 'verify-bin.ts'));
    const child = startNode([...verifier, release], {
      // one thread: the test bundle cannot start itself as a worker (its import.meta.url is the
      // TypeScript source's); the worker path is stop-signals-workers.test.ts's (pilot)
      env: {
        CHI_WORKERS: '1',
        TMPDIR: tmp,
        CHI_FAILPOINT: 'verify:spill:1',
        CHI_FAILPOINT_MARKER: marker,
      },
      stdout: 'ignore',
    });
    await child.untilFile(marker); // the verifier is at its failpoint
    expect(await readdir(tmp)).toHaveLength(1); // its spill folder, made before the failpoint
    expect(await child.stop('SIGINT'), child.stderr()).toBe(130);
    expect(child.stderr()).toBe('\nverify: SIGINT: quit (exit 130)\n');
    expect(await readdir(tmp)).toEqual([]);
    expect(await readFile(marker, 'utf8')).toBe('verify:spill:1\n');
  });
});
