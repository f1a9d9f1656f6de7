import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChatModel, RunStatus } from '@chi/spec';
import { afterAll, describe, expect, it } from 'vitest';
import { captureIo } from '../__fixtures__/cli-io';
import { runCli } from '../cli/cli-main';
import { modelsForManifest } from '../endpoints/system-models';
import { readFrozenManifest } from '../run-folder/manifest';
import { createRun } from '../run-folder/run-create';
import { runPaths } from '../run-folder/run-folder';
import { scriptedSystemSpec } from '../scripted/scripted-systems';
import { defaultOfflineSettings } from '../settings';
import { executeRun } from './run-execute';

const root = mkdtempSync(join(tmpdir(), 'chi-damaged-world-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A two-world scripted run stopped after its first request: the second world is still needed. */
async function stoppedRun(name: string): Promise<{ runDir: string; seeds: readonly number[] }> {
  const settings = defaultOfflineSettings({
    systems: [scriptedSystemSpec('capacity-keeper')],
    replicates: 2,
    loads: [32],
    controlsAtLoad: null,
    history: false,
    behavior: false,
  });
  const run = await createRun({ settings, runDir: join(root, name) });
  const [system] = run.frozen.manifest.systems;
  const scripted = modelsForManifest(run.frozen.manifest).get(system?.id as string) as ChatModel;
  const stop = new AbortController();
  await executeRun({
    runDir: run.runDir,
    models: new Map([
      [
        system?.id as string,
        {
          ...scripted,
          generate: async (request) => {
            const result = await scripted.generate(request);
            stop.abort();
            return result;
          },
        },
      ],
    ]),
    concurrency: 1,
    signal: stop.signal,
  });
  return { runDir: run.runDir, seeds: run.frozen.manifest.worldSeeds };
}

/**
 * `chi pilot --resume runDir` in this process (`runCli`, the function the `chi` bin runs): its exit
 * code and what it wrote on stderr. The bin adds only the process wiring (streams, stop signals),
 * which this test is not about: stop-signals.test.ts and kill-resume.test.ts run it as a process.
 */
async function resume(runDir: string): Promise<{ code: number; stderr: string }> {
  const cli = captureIo({ cwd: root });
  const code = await runCli(['pilot', '--resume', runDir], cli.io);
  return { code, stderr: cli.err() };
}

const attemptLines = (runDir: string) =>
  readFileSync(join(runDir, 'attempts.jsonl'), 'utf8').trimEnd().split('\n').length;
const statusOf = (runDir: string) =>
  JSON.parse(readFileSync(join(runDir, 'status.json'), 'utf8')) as RunStatus;

describe('a damaged world file on resume', () => {
  it('is named before anything is sent: exit 5, no stack trace, status.json not left running', async () => {
    const { runDir, seeds } = await stoppedRun('truncated');
    expect(statusOf(runDir).state).toBe('stopped');
    const world = runPaths(runDir).memoryWorld(seeds[1] as number, 32);
    const bytes = readFileSync(world);
    writeFileSync(world, bytes.subarray(0, Math.floor(bytes.length / 2)));
    const before = attemptLines(runDir);

    const { code, stderr } = await resume(runDir);
    expect(code, stderr).toBe(5);
    expect(stderr).toContain(`damaged run folder: ${world}`);
    expect(stderr).not.toMatch(/\n\s+at /);
    // nothing was sent (the first world's requests were pending too) and no status says running
    expect(attemptLines(runDir)).toBe(before);
    expect(statusOf(runDir).state).not.toBe('running');
  });
});

describe('an error that ends a session mid-way', () => {
  it('leaves status.json failed, not running', async () => {
    const { runDir } = await stoppedRun('unwritable-blocks');
    // blocks.json cannot be written (a folder stands in its place): the session's end fails
    rmSync(join(runDir, 'blocks.json'), { force: true });
    mkdirSync(join(runDir, 'blocks.json'));
    const { manifest } = await readFrozenManifest(runDir);
    await expect(
      executeRun({ runDir, models: modelsForManifest(manifest), concurrency: 1 }),
    ).rejects.toThrow();
    const status = statusOf(runDir);
    expect(status.state).toBe('failed');
    expect(status.stop?.kind).toBe('error');
  });
});
