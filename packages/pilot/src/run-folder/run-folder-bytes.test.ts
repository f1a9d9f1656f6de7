import { hash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { modelsForManifest } from '../endpoints/system-models';
import { executeRun } from '../runner/run-execute';
import { defaultOfflineSettings } from '../settings';
import { createRun } from './run-create';

/**
 * The SHA-256 of every file of a small scripted run folder, made with a fixed clock and one
 * request in flight (so the attempt log's order is fixed too). Issue 38 removed work from the
 * request path (how worlds are serialized, checked and parsed, how scripted notes are written):
 * the run folder must stay byte for byte what it was. `UPDATE_GOLDEN=1` rewrites the list, only
 * for a change that moves these bytes on purpose (and says so in a changeset).
 */
const GOLDEN = join(import.meta.dirname, '..', '__fixtures__', 'golden', 'run-folder-bytes.sha256');

const root = mkdtempSync(join(tmpdir(), 'chi-run-bytes-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

describe('run folder bytes', () => {
  it('are unchanged for a fixed clock: worlds, plan, payloads, requests, attempt log, notebooks', async () => {
    const now = () => new Date('2026-09-01T00:00:00.000Z');
    // Loads 100 and 1000: the capacity systems' notes fill their 6000-byte cap at 1000.
    const settings = defaultOfflineSettings({ replicates: 1, loads: [100, 1000] });
    const run = await createRun({ settings, runDir: join(root, 'run'), now });
    const outcome = await executeRun({
      runDir: run.runDir,
      models: modelsForManifest(run.frozen.manifest, { now }),
      concurrency: 1,
      now,
    });
    expect(outcome.state).toBe('completed');
    // status.json holds the session's wall time (`elapsedMs`): every other file is compared.
    const lines = filesUnder(run.runDir)
      .map((path) => relative(run.runDir, path).split('\\').join('/'))
      .filter((name) => name !== 'status.json')
      .sort()
      .map((name) => `${hash('sha256', readFileSync(join(run.runDir, name)), 'hex')}  ${name}`);
    const actual = `${lines.join('\n')}\n`;
    if (process.env.UPDATE_GOLDEN === '1') writeFileSync(GOLDEN, actual);
    expect(actual).toBe(readFileSync(GOLDEN, 'utf8'));
  }, 120_000);
});
