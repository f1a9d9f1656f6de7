import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { divergencePaths, runDivergenceProtocol } from './run';

const run = promisify(execFile);

// The release's own verifier (`code/verify.mjs`, bundled by the build, so this reads the built
// code) recomputes the whole release in a child whose old-space heap is capped. Before the
// attempt log was streamed, the recomputation held the log's text and every record of every world
// at once: at 12 worlds it needed 89-96 MB of heap; streamed, it needs 57-64 MB
// (docs/benchmarks/scale.md, "Divergence protocol: memory by worlds"). The cap sits midway, so
// either side has a margin of more than 10 MB. A heap the child cannot fit aborts it; no time is
// measured.
const WORLDS = 12;
const HEAP_LIMIT_MB = 76;

describe('chi verify of a divergence release', () => {
  let root: string;
  let release: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'chi-divergence-memory-'));
    const runDir = join(root, 'run');
    await runDivergenceProtocol({
      runDir,
      worlds: WORLDS,
      resamples: 20,
      now: () => new Date('2026-09-01T00:00:00.000Z'),
    });
    release = divergencePaths(runDir).releaseDir;
  }, 120_000);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it(`recomputes ${WORLDS} worlds within a ${HEAP_LIMIT_MB} MB heap: it never holds the attempt log of every world`, async () => {
    const { stdout } = await run(
      process.execPath,
      [`--max-old-space-size=${HEAP_LIMIT_MB}`, join('code', 'verify.mjs'), '.'],
      { cwd: release },
    );
    expect(stdout).toMatch(/^OK: .* match exactly\./m);
  }, 120_000);
});
