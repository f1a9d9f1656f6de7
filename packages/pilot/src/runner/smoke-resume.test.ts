import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SmokeResult } from '@chi/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointProxy } from '../__fixtures__/endpoint-proxy';
import type { CliIo } from '../cli/cli-io';
import { runCli } from '../cli/cli-main';
import { type ScriptedServer, serveScriptedSystem } from '../endpoints/serve';

const root = mkdtempSync(join(tmpdir(), 'chi-smoke-resume-'));
let server: ScriptedServer;
beforeAll(async () => {
  server = await serveScriptedSystem({ system: 'capacity-keeper' });
});
afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

function io(fetch: typeof globalThis.fetch) {
  let err = '';
  const value: CliIo = {
    stdout: { write: () => true },
    stderr: { write: (text: string) => (err += text) },
    env: { OPENAI_API_KEY: 'endpoint-key-0123456789' },
    cwd: root,
    fetch,
  };
  return { io: value, err: () => err };
}

const args = (out: string) => [
  'pilot',
  '--base-url',
  server.baseUrl,
  '--models',
  server.model,
  '--price',
  `${server.model}=1,2`,
  '--replicates',
  '1',
  '--loads',
  '32',
  '--no-controls',
  '--no-history',
  '--no-behavior',
  '--no-release',
  '--ceiling-usd',
  '1',
  '--out',
  join(root, out),
];

describe('smoke checks are never paid twice', () => {
  it('a deleted smoke.jsonl after the scored run started: no new smoke request', async () => {
    const proxy = endpointProxy({ asLiveModel: true, costUsd: 0.0001 });
    expect(await runCli(args('deleted'), io(proxy.fetch).io)).toBe(0);
    const sent = proxy.completions();
    rmSync(join(root, 'deleted', 'smoke.jsonl'));
    expect(
      await runCli(
        ['pilot', '--resume', join(root, 'deleted'), '--no-release'],
        io(proxy.fetch).io,
      ),
    ).toBe(0);
    expect(proxy.completions()).toBe(sent);
  });

  it('a smoke request whose result was lost (killed, or smoke.jsonl deleted) is not sent again', async () => {
    // the smoke reply is malformed: the check fails (exit 4), nothing scored is sent
    const proxy = endpointProxy({
      asLiveModel: true,
      costUsd: 0.0001,
      faultFor: (index) => (index === 0 ? { kind: 'malformed' } : null),
    });
    const out = join(root, 'lost');
    expect(await runCli(args('lost'), io(proxy.fetch).io)).toBe(4);
    expect(proxy.completions()).toBe(1);
    // the state a kill after the smoke request left leaves: reserved in the smoke ledger, no result
    rmSync(join(out, 'smoke.jsonl'));
    const resumed = io(proxy.fetch);
    expect(await runCli(['pilot', '--resume', out], resumed.io)).toBe(4);
    expect(proxy.completions()).toBe(1);
    expect(resumed.err()).toContain('its result was lost; not sent again (paid)');
    const smoke = readFileSync(join(out, 'smoke.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as SmokeResult);
    expect(smoke).toEqual([
      expect.objectContaining({ passed: false, result: null, evidence: 'excluded' }),
    ]);
    // accepting the failure starts the scored run; the smoke is still not sent again
    expect(
      await runCli(
        ['pilot', '--resume', out, '--allow-failed-smoke', '--no-release'],
        io(proxy.fetch).io,
      ),
    ).toBe(0);
    expect(proxy.completions()).toBeGreaterThan(1);
    const scoredSends = proxy.completions();
    rmSync(join(out, 'smoke.jsonl'));
    expect(await runCli(['pilot', '--resume', out, '--no-release'], io(proxy.fetch).io)).toBe(0);
    expect(proxy.completions()).toBe(scoredSends);
  });
});
