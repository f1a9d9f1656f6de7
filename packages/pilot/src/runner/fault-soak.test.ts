import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AttemptRecord, LedgerEntry, RunStatus } from '@chi/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EndpointFault, endpointProxy } from '../__fixtures__/endpoint-proxy';
import type { CliIo } from '../cli/cli-io';
import { runCli } from '../cli/cli-main';
import { type ScriptedServer, serveScriptedSystem } from '../endpoints/serve';

// The shape of an OpenRouter key; the endpoint reads it from OPENAI_API_KEY.
const KEY = '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';
const root = mkdtempSync(join(tmpdir(), 'chi-soak-'));
let server: ScriptedServer;
beforeAll(async () => {
  server = await serveScriptedSystem({ system: 'capacity-keeper' });
});
afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

function allFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? allFiles(path) : [path];
  });
}

function jsonLines<T>(path: string): T[] {
  return readFileSync(path, 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as T);
}

/** Faults by completion index from a fixed linear congruential sequence: reproducible. */
function faultSequence(seed: number): (index: number) => EndpointFault | null {
  const faults: (EndpointFault | null)[] = [];
  let state = seed;
  return (index) => {
    while (faults.length <= index) {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      const roll = state % 20;
      faults.push(
        roll < 3
          ? { kind: 'echo-authorization', offset: 140 + (state % 30) }
          : roll < 5
            ? { kind: 'status', status: 429, retryAfter: '0' }
            : roll < 7
              ? { kind: 'status', status: 503, retryAfter: '0' }
              : roll < 8
                ? { kind: 'reset' }
                : roll < 10
                  ? { kind: 'malformed' }
                  : roll < 11
                    ? {
                        kind: 'status',
                        status: 400,
                        body: JSON.stringify({
                          error: { message: `${'k'.repeat(250)} Bearer ${KEY}` },
                        }),
                      }
                    : null,
      );
    }
    return faults[index] ?? null;
  };
}

describe('fault-injection soak of a live run through a loopback endpoint', () => {
  it('keeps every fragment of an echoed key out of every file, logs every send once and never passes the ceiling', async () => {
    const proxy = endpointProxy({
      asLiveModel: true,
      costUsd: 0.00002,
      faultFor: faultSequence(16),
    });
    const out = join(root, 'soak');
    let err = '';
    const io: CliIo = {
      stdout: { write: () => true },
      stderr: { write: (text: string) => (err += text) },
      env: { OPENAI_API_KEY: KEY },
      cwd: root,
      fetch: proxy.fetch,
    };
    const code = await runCli(
      [
        'pilot',
        '--base-url',
        server.baseUrl,
        '--models',
        server.model,
        '--price',
        `${server.model}=0.5,1.5`,
        '--replicates',
        '3',
        '--loads',
        '32,64',
        '--resamples',
        '20',
        '--ceiling-usd',
        // a history block's worst case with every retry is about 2.9 USD: a ceiling that admits
        // every block (block admission), so the faults, not the money, decide what completes
        '4',
        '--concurrency',
        '4',
        '--allow-failed-smoke',
        '--out',
        out,
      ],
      io,
    );
    // infrastructure failures and rejected keys leave incomplete blocks (3); nothing crashes
    expect([0, 3], err).toContain(code);
    expect(proxy.completions()).toBeGreaterThan(60);

    // 1. no 8-character window of the key anywhere: attempts, failures, ledger, status, release...
    // (windows inside the public prefix `sk-or-v1-`, which every key shares, are not secret)
    const windows = Array.from({ length: KEY.length - 7 }, (_, start) =>
      KEY.slice(start, start + 8),
    ).filter((_, start) => start + 8 > 'sk-or-v1-'.length);
    const files = allFiles(out);
    expect(files.some((file) => file.includes(`${join(out, 'release')}/`))).toBe(true);
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const window of windows)
        expect(text.includes(window), `${file} holds ${window}`).toBe(false);
    }
    expect(readFileSync(join(out, 'attempts.jsonl'), 'utf8')).toContain('Bearer [REDACTED]');

    // 2. every request sent was logged before and after, exactly once
    const attempts = jsonLines<AttemptRecord>(join(out, 'attempts.jsonl'));
    const before = attempts.filter((record) => record.phase === 'before_send');
    const after = attempts.filter((record) => record.phase === 'after_response');
    expect(new Set(before.map((record) => record.attemptId)).size).toBe(before.length);
    expect(after.map((record) => record.attemptId).sort()).toEqual(
      before.map((record) => record.attemptId).sort(),
    );
    const tries = after.reduce((sum, record) => sum + (record.result?.tries.length ?? 0), 0);
    // the smoke check's tries are the only other sends
    const smoke = jsonLines<{ result: AttemptRecord['result'] }>(join(out, 'smoke.jsonl'));
    const smokeTries = smoke.reduce((sum, line) => sum + (line.result?.tries.length ?? 0), 0);
    expect(tries + smokeTries).toBe(proxy.completions());

    // 3. the ledger never committed past the ceiling and holds every reservation the log implies
    const ledger = jsonLines<LedgerEntry>(join(out, 'ledger.jsonl'));
    const status = JSON.parse(readFileSync(join(out, 'status.json'), 'utf8')) as RunStatus;
    expect(status.spend.committedUsd).toBeLessThanOrEqual(4);
    const reserved = new Set(
      ledger.flatMap((entry) => (entry.kind === 'reserve' ? [entry.attemptId] : [])),
    );
    for (const record of after)
      for (const attempt of record.result?.tries ?? [])
        if (attempt.failure !== 'budget_refused')
          expect(reserved.has(`${record.requestId}#${attempt.tryIndex}`)).toBe(true);

    // 4. the run folder resumes cleanly (nothing left to send) and its release verifies
    expect(
      await runCli(['pilot', '--resume', out, '--no-release'], { ...io, fetch: proxy.fetch }),
    ).toBe(code);
    expect(await runCli(['verify', join(out, 'release')], io)).toBe(0);
  });
});
