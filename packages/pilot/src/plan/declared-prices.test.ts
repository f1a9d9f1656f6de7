import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LedgerEntry, RunManifest, RunStatus } from '@chi/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureIo } from '../__fixtures__/cli-io';
import { endpointProxy } from '../__fixtures__/endpoint-proxy';
import { runCli } from '../cli/cli-main';
import { type ScriptedServer, serveScriptedSystem } from '../endpoints/serve';
import { parsePriceArgument } from './declared-prices';

const root = mkdtempSync(join(tmpdir(), 'chi-prices-'));
let server: ScriptedServer;
beforeAll(async () => {
  server = await serveScriptedSystem({ system: 'capacity-keeper' });
});
afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

const io = (fetch: typeof globalThis.fetch) =>
  captureIo({ cwd: root, env: { OPENAI_API_KEY: 'endpoint-key-0123456789' }, fetch });

const SMALL = [
  '--replicates',
  '1',
  '--loads',
  '32',
  '--no-history',
  '--no-behavior',
  '--no-release',
];
const args = (out: string, ...extra: string[]) => [
  'pilot',
  '--base-url',
  server.baseUrl,
  '--models',
  server.model,
  ...SMALL,
  '--ceiling-usd',
  '1',
  '--out',
  join(root, out),
  ...extra,
];

describe('parsePriceArgument', () => {
  it('reads USD per million input and output tokens and USD per request', () => {
    expect(parsePriceArgument('org/model=0.5,2,0.001')).toEqual({
      model: 'org/model',
      price: { inputUsdPerToken: 5e-7, outputUsdPerToken: 2e-6, requestUsd: 0.001 },
    });
    expect(parsePriceArgument('m=1,3')).toMatchObject({ price: { requestUsd: 0 } });
    expect(parsePriceArgument('m=1')).toHaveProperty('problem');
    expect(parsePriceArgument('=1,2')).toHaveProperty('problem');
    expect(parsePriceArgument('m=-1,2')).toHaveProperty('problem');
  });
});

describe('an OpenAI-compatible endpoint that reports usage.cost', () => {
  it('without a declared price: refuses plainly and sends nothing', async () => {
    const proxy = endpointProxy({ asLiveModel: true, costUsd: 0.0001 });
    const cli = io(proxy.fetch);
    expect(await runCli(args('unpriced'), cli.io)).toBe(2);
    expect(cli.err()).toContain('the USD ceiling cannot protect spend on this endpoint');
    expect(cli.err()).toContain('--accept-unbounded-spend');
    expect(proxy.completions()).toBe(0);
  });

  it('with a declared price: the plan and every reservation use it, and a reported cost within it is no overcharge', async () => {
    const proxy = endpointProxy({ asLiveModel: true, costUsd: 0.0001 });
    const plan = io(proxy.fetch);
    expect(
      await runCli([...args('priced-plan'), '--plan', '--price', `${server.model}=1,2`], plan.io),
    ).toBe(0);
    expect(plan.out()).toContain('safety price');
    expect(plan.out()).not.toContain('WARNING');
    expect(plan.out()).not.toMatch(/total\s+\d+\s+0\.0000 /);

    const cli = io(proxy.fetch);
    expect(await runCli([...args('priced'), '--price', `${server.model}=1,2`], cli.io)).toBe(0);
    const out = join(root, 'priced');
    const status = JSON.parse(readFileSync(join(out, 'status.json'), 'utf8')) as RunStatus;
    expect(status).toMatchObject({ state: 'completed', stop: null });
    expect(status.requests.resolved).toBe(status.requests.total);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as RunManifest;
    expect(manifest.systems[0]?.safetyPrice).toEqual({
      inputUsdPerToken: 1e-6,
      outputUsdPerToken: 2e-6,
      requestUsd: 0,
    });
    const ledger = readFileSync(join(out, 'ledger.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as LedgerEntry);
    const reservations = ledger.filter((entry) => entry.kind === 'reserve');
    expect(reservations.length).toBe(status.requests.total);
    for (const entry of reservations)
      if (entry.kind === 'reserve') expect(entry.amountUsd).toBeGreaterThan(0.0001);
    expect(ledger.some((entry) => entry.kind === 'stop')).toBe(false);
  });

  it('reads prices from a file too, and --accept-unbounded-spend runs an unpriced endpoint with a warning', async () => {
    const file = join(root, 'prices.json');
    writeFileSync(
      file,
      JSON.stringify({
        models: { [server.model]: { inputUsdPerMillionTokens: 1, outputUsdPerMillionTokens: 2 } },
      }),
    );
    const proxy = endpointProxy({ asLiveModel: true, costUsd: 0.0001 });
    const plan = io(proxy.fetch);
    expect(await runCli([...args('file-plan'), '--plan', '--prices', file], plan.io)).toBe(0);
    expect(plan.out()).not.toContain('WARNING');
    const unpricedPlan = io(proxy.fetch);
    expect(await runCli([...args('unpriced-plan'), '--plan'], unpricedPlan.io)).toBe(0);
    expect(unpricedPlan.out()).toContain('WARNING: no price is declared for');

    const cli = io(proxy.fetch);
    expect(await runCli([...args('accepted'), '--accept-unbounded-spend'], cli.io)).toBe(0);
    expect(cli.err()).toContain('the ceiling does not bound its spend');
    const status = JSON.parse(
      readFileSync(join(root, 'accepted', 'status.json'), 'utf8'),
    ) as RunStatus;
    expect(status.state).toBe('completed');
    expect(status.spend.chargedUsd).toBeCloseTo(0.0001 * status.requests.total, 9);
  });
});
