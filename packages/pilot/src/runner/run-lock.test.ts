import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AttemptRecord } from '@chi/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeArgsFor } from '../../../../tooling/vitest/child-bundle';
import { type Child, startNode } from '../../../../tooling/vitest/child-process';
import { type HeldGateway, startHeldGateway } from '../__fixtures__/held-gateway';

// Two real `chi` processes on one run folder: the second writer must be refused while the first
// holds the folder's lock, deterministically (the first holds it while the loopback gateway keeps
// one of its requests open), with no sleep anywhere.

/** `node`'s arguments that start `chi`: the run's bundle of its sources (`nodeArgsFor`). */
const CHI = await nodeArgsFor(fileURLToPath(new URL('../cli.ts', import.meta.url)));

let root: string;
let gateway: HeldGateway;

function runCliChild(args: readonly string[]): Child {
  return startNode([...CHI, ...args], { stdout: 'ignore' });
}

async function exited(child: Child): Promise<{ code: number | string; stderr: string }> {
  return { code: await child.exit, stderr: child.stderr() };
}

function jsonLines<T>(path: string): T[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as T);
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'chi-lock-'));
  gateway = await startHeldGateway(['capacity-keeper', 'abstainer']);
}, 120_000);

afterAll(async () => {
  await gateway.close();
  rmSync(root, { recursive: true, force: true });
});

describe('one writer per run folder', () => {
  it('refuses a second resume while the first runs, takes over the lock of a killed one', async () => {
    const runDir = join(root, 'run');
    // A first session killed with a request in flight leaves its lock behind (a dead PID).
    const firstHeld = gateway.holdNth(2);
    const first = runCliChild([
      'pilot',
      '--base-url',
      gateway.baseUrl,
      '--models',
      gateway.models.join(','),
      '--ceiling-usd',
      '1',
      '--replicates',
      '1',
      '--loads',
      '32',
      '--seed',
      '4242',
      '--concurrency',
      '2',
      '--out',
      runDir,
    ]);
    await firstHeld;
    await first.stop('SIGKILL');
    const stale = JSON.parse(readFileSync(join(runDir, 'run.lock'), 'utf8')) as { pid: number };
    expect(stale.pid).toBe(first.process.pid);

    // Resume A takes the stale lock over and holds the folder while its 3rd request is held (one
    // request in flight at a time: while it is held, A sends nothing else).
    const held = gateway.holdNth(3);
    const a = runCliChild(['pilot', '--resume', runDir, '--concurrency', '1']);
    const aExit = exited(a);
    const heldRequest = await held;
    const lock = JSON.parse(readFileSync(join(runDir, 'run.lock'), 'utf8')) as {
      pid: number;
      host: string;
      since: string;
    };
    expect(lock).toMatchObject({ pid: a.process.pid, host: hostname() });
    const sentBeforeB = gateway.scoredSinceArmed();

    // Resume B: refused with the holder named, exit 6, nothing sent.
    const b = await exited(runCliChild(['pilot', '--resume', runDir]));
    expect(b.code).toBe(6);
    expect(b.stderr).toContain(
      `in use by chi pilot --resume (PID ${a.process.pid} on host ${hostname()}, since ${lock.since})`,
    );
    expect(b.stderr).not.toMatch(/\n\s+at /);
    expect(gateway.scoredSinceArmed()).toBe(sentBeforeB);

    // A completes; the folder holds one writer's records only.
    await heldRequest.answer();
    expect((await aExit).code).toBe(0);
    expect(existsSync(join(runDir, 'run.lock'))).toBe(false);
    const seqs = jsonLines<{ seq: number }>(join(runDir, 'ledger.jsonl')).map((e) => e.seq);
    expect(new Set(seqs).size).toBe(seqs.length);
    const answered = jsonLines<AttemptRecord>(join(runDir, 'attempts.jsonl'))
      .filter((record) => record.phase === 'after_response')
      .map((record) => record.attemptId);
    expect(new Set(answered).size).toBe(answered.length);
    expect(JSON.parse(readFileSync(join(runDir, 'status.json'), 'utf8'))).toMatchObject({
      state: 'completed',
      exitCode: 0,
    });

    // chi score takes the same lock, and releases it.
    const scored = await exited(runCliChild(['score', runDir, '--no-release']));
    expect(scored.code).toBe(0);
    expect(existsSync(join(runDir, 'run.lock'))).toBe(false);
  }, 600_000);
});
