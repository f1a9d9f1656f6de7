import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AttemptRecord } from '@chi/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeArgsFor } from '../../../../tooling/vitest/child-bundle';
import { type Child, startNode } from '../../../../tooling/vitest/child-process';
import { type HeldGateway, startHeldGateway } from '../__fixtures__/held-gateway';
import { memoryScoresOf } from '../__fixtures__/memory-scores';

/** `node`'s arguments that start `chi`: the run's bundle of its sources (`nodeArgsFor`). */
const CHI = await nodeArgsFor(fileURLToPath(new URL('../cli.ts', import.meta.url)));
const SYSTEMS = ['capacity-keeper', 'latest-wins', 'abstainer'];
const RUN_OPTIONS = [
  '--replicates',
  '2',
  '--loads',
  '32,64',
  '--seed',
  '4242',
  '--concurrency',
  '4',
];

let root: string;
let reference: string;
let gateway: HeldGateway;

// the endpoint is a scripted loopback gateway: no credential of any kind is needed or sent
// (startNode leaves the provider keys out of the child's environment)
function runCliChild(args: readonly string[]): Child {
  return startNode([...CHI, ...args], { stdout: 'ignore' });
}

function newRunArgs(out: string): string[] {
  return [
    'pilot',
    '--base-url',
    gateway.baseUrl,
    '--models',
    gateway.models.join(','),
    '--ceiling-usd',
    '1',
    ...RUN_OPTIONS,
    '--out',
    out,
  ];
}

function attemptRecords(runDir: string): AttemptRecord[] {
  const path = join(runDir, 'attempts.jsonl');
  if (!existsSync(path)) return [];
  const records: AttemptRecord[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line === '') continue;
    try {
      records.push(JSON.parse(line) as AttemptRecord);
    } catch {
      // a torn final line (the process was killed mid-write)
    }
  }
  return records;
}

/** Request IDs with a `before_send` and neither an `after_response` nor an `abandoned` record. */
function openRequests(runDir: string): Set<string> {
  const open = new Set<string>();
  for (const record of attemptRecords(runDir)) {
    if (record.phase === 'before_send') open.add(record.requestId);
    else open.delete(record.requestId);
  }
  return open;
}

/**
 * Runs one session that the gateway stops at its `ordinal`-th scored request: once that request
 * is held (so it is in flight by construction, its `before_send` already appended), the session
 * is killed with SIGKILL. Resolves to 'finished' only if the session ended first.
 */
async function runUntilHeld(
  args: readonly string[],
  ordinal: number,
): Promise<'killed' | 'finished'> {
  const held = gateway.holdNth(ordinal);
  const child = runCliChild(args);
  if ((await child.firstOf(held)) === 'exit') return 'finished';
  await child.stop('SIGKILL');
  return 'killed';
}

const finalTexts = (runDir: string) => {
  const texts = new Map<string, string | null>();
  const afterCount = new Map<string, number>();
  for (const line of readFileSync(join(runDir, 'attempts.jsonl'), 'utf8').split('\n')) {
    if (line === '') continue;
    let record: AttemptRecord;
    try {
      record = JSON.parse(line) as AttemptRecord;
    } catch {
      continue; // a torn final line
    }
    if (record.phase === 'after_response') {
      texts.set(record.requestId, record.result?.text ?? null);
      afterCount.set(record.requestId, (afterCount.get(record.requestId) ?? 0) + 1);
    }
  }
  return { texts, afterCount };
};

function scoreFiles(releaseDir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(join(releaseDir, 'scores')).sort())
    out[name] = readFileSync(join(releaseDir, 'scores', name), 'utf8');
  return out;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'chi-kill-'));
  gateway = await startHeldGateway(SYSTEMS);
  reference = join(root, 'reference');
  const child = runCliChild(newRunArgs(reference));
  expect(await child.exit, child.stderr()).toBe(0);
}, 300_000);

afterAll(async () => {
  await gateway.close();
  rmSync(root, { recursive: true, force: true });
});

describe('chi pilot killed with requests in flight and resumed', () => {
  it('ends with the same scores as an uninterrupted run, sending no resolved request twice', async () => {
    const referenceTexts = finalTexts(reference).texts;
    // A fixed pseudo-random sequence (a linear congruential generator) picks which of the
    // remaining scored requests each session is killed on, so the test is reproducible. Every
    // choice is at most the number of requests still to send, so the held request always comes.
    let state = 20260901;
    const nextOrdinal = (runDir: string) => {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      const resolved = new Set(
        attemptRecords(runDir)
          .filter((record) => record.phase === 'after_response')
          .map((record) => record.requestId),
      ).size;
      const remaining = referenceTexts.size - resolved;
      return 1 + (state % Math.max(1, Math.floor(remaining / 2)));
    };
    const runDir = join(root, 'killed');
    const killedOpen: string[][] = [];
    for (let session = 0; session < 3; session += 1) {
      const args = session === 0 ? newRunArgs(runDir) : ['pilot', '--resume', runDir];
      expect(await runUntilHeld(args, nextOrdinal(runDir))).toBe('killed');
      expect(existsSync(join(runDir, 'manifest.json'))).toBe(true);
      // the kill caught the held request (and possibly others) between before_send and its result
      const open = [...openRequests(runDir)];
      expect(open.length).toBeGreaterThanOrEqual(1);
      killedOpen.push(open);
    }
    const last = runCliChild(['pilot', '--resume', runDir]);
    expect(await last.exit, last.stderr()).toBe(0);
    expect(JSON.parse(readFileSync(join(runDir, 'status.json'), 'utf8'))).toMatchObject({
      state: 'completed',
      exitCode: 0,
    });

    // every request left open by a kill was recorded as abandoned on resume, then sent again
    const abandoned = new Set(
      attemptRecords(runDir)
        .filter((record) => record.phase === 'abandoned')
        .map((record) => record.requestId),
    );
    for (const open of killedOpen)
      for (const requestId of open) expect(abandoned).toContain(requestId);
    const { texts, afterCount } = finalTexts(runDir);
    expect(texts).toEqual(referenceTexts);
    expect([...afterCount.values()].every((count) => count === 1)).toBe(true);
    expect(memoryScoresOf(runDir)).toEqual(memoryScoresOf(reference));
    expect(statSync(join(runDir, 'release', 'SHA256SUMS')).isFile()).toBe(true);
    expect(scoreFiles(join(runDir, 'release'))).toEqual(scoreFiles(join(reference, 'release')));
  }, 600_000);
});
