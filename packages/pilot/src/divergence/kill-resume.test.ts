import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeArgsFor } from '../../../../tooling/vitest/child-bundle';
import { type Child, startNode } from '../../../../tooling/vitest/child-process';
import {
  type DivergenceEndpoint,
  startDivergenceEndpoint,
} from '../__fixtures__/divergence-endpoint';
import { divergenceSession } from '../__fixtures__/divergence-session';

/** `node`'s arguments that start one session: the run's bundle of its sources (`nodeArgsFor`). */
const SESSION = await nodeArgsFor(
  fileURLToPath(new URL('../__fixtures__/divergence-session-bin.ts', import.meta.url)),
);
const PER_WORLD = 287;

let root: string;
let endpoint: DivergenceEndpoint;
let reference: string;

function spawnSession(
  runDir: string,
  mode: 'new' | 'resume',
  evidence: 'scripted_baseline' | 'live_model' = 'scripted_baseline',
): Child {
  return startNode([...SESSION, runDir, endpoint.baseUrl, mode, evidence], { stdout: 'ignore' });
}

/**
 * One session that the endpoint stops at its `ordinal`-th scored request: once that request is
 * held (in flight by construction: its `before_send` record is already synced), SIGKILL.
 */
async function killWhileHeld(
  runDir: string,
  mode: 'new' | 'resume',
  ordinal: number,
  evidence: 'scripted_baseline' | 'live_model' = 'scripted_baseline',
) {
  const held = endpoint.armNth(ordinal, 'hold');
  const child = spawnSession(runDir, mode, evidence);
  expect(await child.firstOf(held), child.stderr()).toBe('event');
  await child.stop('SIGKILL');
}

function jsonLines(path: string): Record<string, unknown>[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function releaseFiles(dir: string): Record<string, string> {
  // every file of the release, nested ones (chis/, code/, payloads/, prompts/) included
  return Object.fromEntries(
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
      .sort()
      .map((name) => [name, readFileSync(join(dir, name), 'latin1')]),
  );
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'chi-divergence-kill-'));
  endpoint = await startDivergenceEndpoint();
  reference = await divergenceSession(join(root, 'reference'), endpoint.baseUrl, 'new');
});

afterAll(async () => {
  await endpoint.close();
  rmSync(root, { recursive: true, force: true });
});

describe('a live divergence run killed with a request in flight and resumed', () => {
  it('re-sends only the open requests and publishes the same release byte for byte', async () => {
    const runDir = join(root, 'killed');
    const before = endpoint.scored();
    await killWhileHeld(runDir, 'new', 5);
    const attempts = () => jsonLines(join(runDir, 'attempts.jsonl'));
    const open = (): string[] => {
      const answered = new Set(
        attempts()
          .filter((record) => record.phase !== 'before_send')
          .map((record) => `${String(record.requestId)}|${String(record.attemptId)}`),
      );
      return attempts()
        .filter((record) => record.phase === 'before_send')
        .filter(
          (record) => !answered.has(`${String(record.requestId)}|${String(record.attemptId)}`),
        )
        .map((record) => record.requestId as string);
    };
    const killedOpen = [open()];
    expect(killedOpen[0]).toHaveLength(1);
    // a torn last line (a write the kill cut short) is dropped by the resumed writer
    appendFileSync(join(runDir, 'attempts.jsonl'), '{"kind":"attempt","manifestSha');
    await killWhileHeld(runDir, 'resume', 40);
    killedOpen.push(open());
    await killWhileHeld(runDir, 'resume', 100);
    killedOpen.push(open());
    for (const ids of killedOpen) expect(ids).toHaveLength(1);
    const last = spawnSession(runDir, 'resume');
    expect(await last.exit, last.stderr()).toBe(0);

    // every call answered once; the endpoint saw each request once, plus each held one again
    const calls = attempts().filter((record) => record.phase === 'after_response');
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
    // the attempt log and the request index (re-sent requests are indexed again) record the
    // kills, and SHA256SUMS lists them; every other file is the same, code/ and chis/ included
    expect(differing).toEqual(['SHA256SUMS', 'attempts.jsonl', 'requests.jsonl']);
  }, 300_000);

  it('never re-sends an open request of a live (possibly paid) system: its instance ends, abandoned, and is excluded with the reason', async () => {
    const runDir = join(root, 'paid');
    await killWhileHeld(runDir, 'new', 5, 'live_model');
    const attempts = jsonLines(join(runDir, 'attempts.jsonl'));
    const answered = new Set(
      attempts.filter((r) => r.phase === 'after_response').map((r) => r.attemptId),
    );
    const open = attempts
      .filter((r) => r.phase === 'before_send' && !answered.has(r.attemptId))
      .map((r) => r.requestId as string);
    expect(open).toHaveLength(1);
    const before = endpoint.scored();
    const last = spawnSession(runDir, 'resume', 'live_model');
    expect(await last.exit, last.stderr()).toBe(0);
    const after = jsonLines(join(runDir, 'attempts.jsonl'));
    expect(after.filter((r) => r.requestId === open[0] && r.phase === 'before_send')).toHaveLength(
      1,
    );
    expect(after.filter((r) => r.requestId === open[0] && r.phase === 'abandoned')).toHaveLength(1);
    // the rest of its instance depends on it and is never sent; the endpoint saw only new sends
    const instance = (open[0] as string).replace(/\.c\d+\.(update|operation|probe)\.\d+$/, '');
    const sends = (records: Record<string, unknown>[]) =>
      records.filter((r) => r.phase === 'before_send').map((r) => r.requestId as string);
    const resumedSends = sends(after).slice(sends(attempts).length);
    const ofInstance = (id: string) =>
      id.startsWith(`${instance}.c`) && /^\d+\./.test(id.slice(instance.length + 2));
    expect(resumedSends.filter(ofInstance)).toEqual([]);
    expect(endpoint.scored() - before).toBe(resumedSends.length);
    expect(new Set(sends(after)).size).toBeLessThan(PER_WORLD);
    const analysis = JSON.parse(readFileSync(join(runDir, 'release', 'divergence.json'), 'utf8'));
    expect(analysis.excludedInstances).toHaveLength(1);
    expect(analysis.excludedInstances[0].requestId).toBe(open[0]);
    expect(analysis.excludedInstances[0].reason).toContain(
      'uncertain_attempt: possibly sent before an interruption, never re-sent',
    );
  }, 300_000);
});
