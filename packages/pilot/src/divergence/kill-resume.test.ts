import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DivergenceEndpoint,
  startDivergenceEndpoint,
} from '../__fixtures__/divergence-endpoint';
import { divergenceSession } from '../__fixtures__/divergence-session';

const SESSION = fileURLToPath(new URL('../__fixtures__/divergence-session.ts', import.meta.url));
const TSCONFIG = fileURLToPath(new URL('../../tsconfig.json', import.meta.url));
const PER_WORLD = 231;

let root: string;
let endpoint: DivergenceEndpoint;
let reference: string;

function spawnSession(runDir: string, mode: 'new' | 'resume'): ChildProcess {
  const env: NodeJS.ProcessEnv = { ...process.env, TSX_TSCONFIG_PATH: TSCONFIG, NO_COLOR: '1' };
  delete env.OPENROUTER_API_KEY;
  delete env.OPENAI_API_KEY;
  return spawn(process.execPath, ['--import', 'tsx', SESSION, runDir, endpoint.baseUrl, mode], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/**
 * One session that the endpoint stops at its `ordinal`-th scored request: once that request is
 * held (in flight by construction: its send record is already synced), SIGKILL.
 */
async function killWhileHeld(runDir: string, mode: 'new' | 'resume', ordinal: number) {
  const held = endpoint.armNth(ordinal, 'hold');
  const child = spawnSession(runDir, mode);
  const done = exited(child);
  const first = await Promise.race([
    held.then(() => 'held' as const),
    done.then(() => 'exit' as const),
  ]);
  expect(first).toBe('held');
  child.kill('SIGKILL');
  await done;
}

function jsonLines(path: string): Record<string, unknown>[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function releaseFiles(dir: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((name) => [name, readFileSync(join(dir, name), 'utf8')]),
  );
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'chi-divergence-kill-'));
  endpoint = await startDivergenceEndpoint();
  reference = await divergenceSession(join(root, 'reference'), endpoint.baseUrl, 'new');
}, 120_000);

afterAll(async () => {
  await endpoint.close();
  rmSync(root, { recursive: true, force: true });
});

describe('a live divergence run killed with a request in flight and resumed', () => {
  it('re-sends only the open requests and publishes the same release byte for byte', async () => {
    const runDir = join(root, 'killed');
    const before = endpoint.scored();
    await killWhileHeld(runDir, 'new', 5);
    const open = (): string[] => {
      const logged = new Set(jsonLines(join(runDir, 'calls.jsonl')).map((line) => line.requestId));
      return jsonLines(join(runDir, 'sends.jsonl'))
        .map((send) => send.requestId as string)
        .filter((id) => !logged.has(id));
    };
    const killedOpen = [open()];
    expect(killedOpen[0]).toHaveLength(1);
    // a torn last line (a write the kill cut short) is dropped by the resumed writer
    appendFileSync(join(runDir, 'calls.jsonl'), '{"kind":"divergence-call","manifestSha');
    await killWhileHeld(runDir, 'resume', 40);
    killedOpen.push(open());
    await killWhileHeld(runDir, 'resume', 100);
    killedOpen.push(open());
    for (const ids of killedOpen) expect(ids).toHaveLength(1);
    const last = spawnSession(runDir, 'resume');
    expect(await exited(last)).toBe(0);

    // every call logged once; the endpoint saw each request once, plus each held one again
    const calls = jsonLines(join(runDir, 'calls.jsonl'));
    expect(calls).toHaveLength(PER_WORLD);
    expect(new Set(calls.map((call) => call.requestId)).size).toBe(PER_WORLD);
    expect(endpoint.scored() - before).toBe(PER_WORLD + 3);
    for (const [id] of killedOpen)
      expect(calls.filter((call) => call.requestId === id)).toHaveLength(1);
    const resumed = releaseFiles(join(runDir, 'release'));
    const uninterrupted = releaseFiles(reference);
    expect(Object.keys(resumed)).toEqual(Object.keys(uninterrupted));
    // named per file, so a difference does not print two whole call logs
    const differing = Object.keys(uninterrupted).filter(
      (name) => resumed[name] !== uninterrupted[name],
    );
    expect(differing).toEqual([]);
  }, 300_000);
});
