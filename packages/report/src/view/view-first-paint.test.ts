import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildFixtureRun } from '../__fixtures__/fixture-run';
import { tempDir } from '../__fixtures__/temp-dir';
import { openViewRun } from './view-run';

/** A file reader that records each file it reads (by name) and the bytes it returned. */
function countingReader() {
  const reads: { file: string; bytes: number }[] = [];
  return {
    reads,
    files: () => reads.map((r) => r.file),
    bytes: () => reads.reduce((sum, r) => sum + r.bytes, 0),
    read: async (path: string) => {
      const bytes = await readFile(path);
      reads.push({ file: basename(path), bytes: bytes.length });
      return bytes;
    },
  };
}

describe('chi view first screen (issue 37: a 60-world run opens in under 2 s)', () => {
  const dirs: { remove: () => Promise<void> }[] = [];
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await dir.remove();
  });

  /** A fixture run of `worlds` worlds; its plan's size in bytes. */
  async function run(worlds: number) {
    const dir = await tempDir('first-paint');
    dirs.push(dir);
    await buildFixtureRun(dir.path, { seeds: Array.from({ length: worlds }, (_, i) => 11 + i) });
    return { path: dir.path, planBytes: (await readFile(`${dir.path}/plan.json`)).length };
  }

  /** Opens the run and draws its first screen, counting what is read. */
  async function firstScreen(dir: string) {
    const reader = countingReader();
    const view = await openViewRun(dir, { readFile: reader.read });
    const summary = await view.summary();
    return { reader, view, summary };
  }

  it('reads the manifest and never the plan, the log or a request for the summary', async () => {
    const small = await run(1);
    const { reader, view, summary } = await firstScreen(small.path);
    expect(reader.files()).toContain('manifest.json');
    expect(reader.files()).not.toContain('plan.json');
    expect(reader.files().filter((f) => f.endsWith('.jsonl'))).toEqual([]);
    expect(summary.worlds).toEqual([11]);
    // the reader is the one the view reads the plan through: a page of worlds reads it
    await view.worlds('keeper');
    expect(reader.files()).toContain('plan.json');
  });

  it('reads about as many bytes at 4 worlds as at 1, though the plan is 4 times larger', async () => {
    const one = await run(1);
    const four = await run(4);
    expect(four.planBytes).toBeGreaterThan(3 * one.planBytes);
    const a = await firstScreen(one.path);
    const b = await firstScreen(four.path);
    expect(b.summary.worlds).toEqual([11, 12, 13, 14]);
    // the manifest lists the seeds and the status counts requests: a few bytes a world
    expect(b.reader.bytes() - a.reader.bytes()).toBeLessThan(200);
    expect(a.reader.files()).toContain('manifest.json');
    expect(b.reader.files().sort()).toEqual(a.reader.files().sort());
  });
});
