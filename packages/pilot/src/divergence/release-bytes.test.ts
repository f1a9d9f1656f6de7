import { hash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testFolder } from '../__fixtures__/test-folder';
import { runDivergenceProtocol } from './run';

/**
 * The SHA-256 of every published file of a small divergence release made with a fixed clock and
 * one request in flight, and its `SHA256SUMS` lines, `code/` apart (the packed packages and the
 * bundled verifier change with every change of the code). Recorded from the divergence writer
 * before it became a release kind of `@chi/report`'s `writeRelease` (issue 34): the divergence
 * release must stay byte for byte what it was. `UPDATE_GOLDEN=1` rewrites the list, only for a
 * change that moves these bytes on purpose (and says so in a changeset).
 */
const GOLDEN = join(
  import.meta.dirname,
  '..',
  '__fixtures__',
  'golden',
  'divergence-release-bytes.sha256',
);

function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(dir, `${prefix}${entry.name}/`) : [`${prefix}${entry.name}`],
  );
}

describe('divergence release bytes', () => {
  it('are unchanged for a fixed clock: every file but code/, and SHA256SUMS but its code/ lines', async () => {
    const runDir = join(testFolder('chi-divergence-bytes-'), 'run');
    await runDivergenceProtocol({
      runDir,
      worlds: 2,
      rootSeed: 7,
      resamples: 20,
      now: () => new Date('2026-09-01T00:00:00.000Z'),
      concurrency: 1,
    });
    const release = join(runDir, 'release');
    const files = filesUnder(release)
      .filter((name) => !name.startsWith('code/'))
      .sort();
    const lines = files.map((name) => {
      const bytes = readFileSync(join(release, name));
      const kept =
        name === 'SHA256SUMS'
          ? bytes
              .toString('utf8')
              .split('\n')
              .filter((line) => !line.includes('  code/'))
              .join('\n')
          : bytes;
      return `${hash('sha256', kept, 'hex')}  ${name}`;
    });
    const actual = `${lines.join('\n')}\n`;
    if (process.env.UPDATE_GOLDEN === '1') writeFileSync(GOLDEN, actual);
    expect(actual).toBe(readFileSync(GOLDEN, 'utf8'));
  }, 120_000);
});
