import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunStatus } from '@chi/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureIo } from '../__fixtures__/cli-io';
import { endpointProxy } from '../__fixtures__/endpoint-proxy';
import { runCli } from '../cli/cli-main';
import { type ScriptedServer, serveScriptedSystem } from '../endpoints/serve';

const root = mkdtempSync(join(tmpdir(), 'chi-unbounded-'));
let server: ScriptedServer;
beforeAll(async () => {
  server = await serveScriptedSystem({ system: 'capacity-keeper' });
});
afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

const COST_USD = 0.2;
const CEILING_USD = 0.5;

describe('spend under --accept-unbounded-spend', () => {
  it('is shown from the recorded charges and stops the run at the ceiling', async () => {
    // every request of the unpriced endpoint reports 0.2 USD: nothing is reserved for it
    const proxy = endpointProxy({ asLiveModel: true, costUsd: COST_USD });
    const out = join(root, 'unbounded');
    const cli = captureIo({
      cwd: root,
      env: { OPENAI_API_KEY: 'endpoint-key-0123456789' },
      fetch: proxy.fetch,
    });
    const code = await runCli(
      [
        'pilot',
        '--base-url',
        server.baseUrl,
        '--models',
        server.model,
        '--replicates',
        '1',
        '--loads',
        '32',
        '--no-history',
        '--no-behavior',
        '--no-release',
        '--concurrency',
        '1',
        '--ceiling-usd',
        String(CEILING_USD),
        '--accept-unbounded-spend',
        '--out',
        out,
      ],
      cli.io,
    );
    const status = JSON.parse(readFileSync(join(out, 'status.json'), 'utf8')) as RunStatus;
    // stopped at the ceiling by what was charged (exit 3), one request past it at most
    expect(code, cli.err()).toBe(3);
    expect(status.state).toBe('stopped');
    expect(status.stop?.kind).toBe('ceiling');
    expect(status.requests.notSent).toBeGreaterThan(0);
    expect(status.spend.chargedUsd).toBeGreaterThanOrEqual(CEILING_USD);
    expect(status.spend.chargedUsd).toBeLessThanOrEqual(CEILING_USD + COST_USD + 1e-9);
    // the spend shown is the recorded charges, never $0 while the server charges
    expect(status.spend.committedUsd).toBeCloseTo(status.spend.chargedUsd, 9);
    expect(cli.err()).toContain(`$${status.spend.chargedUsd.toFixed(4)} of $0.5000 ceiling`);
    expect(cli.err()).not.toMatch(/\$0\.0000 of \$0\.5000 ceiling · [1-9]/);
  });
});
