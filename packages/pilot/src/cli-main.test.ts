import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BlockStatus, LedgerEntry, RunStatus, SmokeResult } from '@chi/spec';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { fakeOpenRouter } from './__fixtures__/fake-openrouter';
import { type CliIo, runCli } from './cli-main';
import { serveScriptedSystem } from './serve';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'chi-cli-'));
});
afterAll(() => {
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

function io(overrides: Partial<CliIo> = {}) {
  let out = '';
  let err = '';
  const value: CliIo = {
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text) },
    env: {},
    cwd: root,
    ...overrides,
  };
  return { io: value, out: () => out, err: () => err };
}

function allFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? allFiles(path) : [path];
  });
}

const KEY = 'sk-or-v1-test-secret-0123456789';
const LIVE_SMALL = [
  '--models',
  'moonshotai/kimi-k3@moonshotai/mxfp4',
  '--replicates',
  '1',
  '--loads',
  '32',
  '--no-history',
  '--no-behavior',
];
// Tests about the stop paths skip the release step (exercised by the other tests).
const NO_RELEASE = ['--no-release'];

describe('chi (in process)', () => {
  it('prints usage and exits 0 for help', async () => {
    const cli = io();
    expect(await runCli(['help'], cli.io)).toBe(0);
    expect(cli.out()).toContain('chi pilot --plan');
  });

  it('prints the package version for `chi version`', async () => {
    const cli = io();
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(await runCli(['version'], cli.io)).toBe(0);
    expect(cli.out()).toBe(`${pkg.version}\n`);
  });

  it('exits 2 with one line for a bad option, a missing key or a missing ceiling', async () => {
    for (const [argv, env, message] of [
      [
        ['pilot', '--concurrency', '0'],
        {},
        'chi: --concurrency: expected an integer >= 1, found "0"\n',
      ],
      [
        ['pilot', '--live', '--ceiling-usd', '3'],
        {},
        'chi: OPENROUTER_API_KEY is not set: export your API key in this environment variable (keys are never read from files)\n',
      ],
      [
        ['pilot', '--live'],
        { OPENROUTER_API_KEY: KEY },
        'chi pilot: a live run needs --ceiling-usd X (frozen in the manifest before the first scored request)\n',
      ],
      [
        ['pilot', '--systems', 'perfect,oracle'],
        {},
        'chi: --systems: unknown scripted system "oracle"; expected perfect, capacity-keeper, latest-wins, confabulator, abstainer\n',
      ],
    ] as const) {
      const cli = io({ env });
      expect(await runCli(argv, cli.io)).toBe(2);
      expect(cli.err()).toBe(message);
    }
  });

  it('exits 2 when an OpenAI-compatible endpoint is unreachable', async () => {
    const cli = io({
      fetch: (async () => {
        throw new TypeError('fetch failed', {
          cause: new Error('connect ECONNREFUSED 127.0.0.1:9'),
        });
      }) as typeof fetch,
    });
    expect(
      await runCli(
        ['pilot', '--base-url', 'http://127.0.0.1:9/v1', '--models', 'm', '--ceiling-usd', '0'],
        cli.io,
      ),
    ).toBe(2);
    expect(cli.err()).toBe(
      'chi: --base-url: http://127.0.0.1:9/v1 is unreachable (connect ECONNREFUSED 127.0.0.1:9)\n',
    );
  });

  it('--plan prints requests per model and the worst-case cost without sending a request', async () => {
    const fake = fakeOpenRouter({ answerWith: 'capacity-keeper' });
    const cli = io({ fetch: fake.fetch });
    expect(await runCli(['pilot', '--plan', ...LIVE_SMALL], cli.io)).toBe(0);
    expect(cli.out()).toMatch(/kimi-k3\s+moonshotai\/kimi-k3\s+4\s+\d+\.\d{4}/);
    expect(cli.out()).toContain('catalog and safety price (larger)');
    expect(fake.completions()).toBe(0);
    expect(existsSync(join(root, 'chi-runs'))).toBe(false);
  });

  it('runs a live pilot through the transport: smoke check first, ledger, release, and the key nowhere on disk', async () => {
    const fake = fakeOpenRouter({ answerWith: 'capacity-keeper' });
    const cli = io({ env: { OPENROUTER_API_KEY: KEY }, fetch: fake.fetch });
    const out = join(root, 'live');
    expect(await runCli(['pilot', ...LIVE_SMALL, '--ceiling-usd', '5', '--out', out], cli.io)).toBe(
      0,
    );
    expect(cli.out().trim().split('\n').pop()).toBe(join(out, 'release'));
    expect(existsSync(join(out, 'release', 'SHA256SUMS'))).toBe(true);
    const smoke = readFileSync(join(out, 'smoke.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as SmokeResult);
    expect(smoke).toEqual([
      expect.objectContaining({
        systemId: 'kimi-k3',
        passed: true,
        evidence: 'excluded',
        checks: { allowlistResolved: true, priceKnown: true, replyParsed: true },
      }),
    ]);
    expect(fake.completions()).toBe(1 + 4);
    const ledger = readFileSync(join(out, 'ledger.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as LedgerEntry);
    expect(ledger.filter((entry) => entry.kind === 'reserve')).toHaveLength(4);
    expect(ledger.filter((entry) => entry.kind === 'settle')).toHaveLength(4);
    expect(existsSync(join(out, 'catalog.json'))).toBe(true);
    expect(fake.authorizations.every((header) => header === `Bearer ${KEY}`)).toBe(true);
    for (const file of allFiles(out))
      expect(readFileSync(file, 'utf8').includes(KEY), file).toBe(false);
  });

  it('exits 2 before creating a run when the provider allowlist does not resolve in the catalog', async () => {
    const fake = fakeOpenRouter({
      answerWith: 'capacity-keeper',
      providerName: 'Someone Else',
      tag: 'someone/else',
    });
    const cli = io({ env: { OPENROUTER_API_KEY: KEY }, fetch: fake.fetch });
    const out = join(root, 'no-allowlist');
    expect(await runCli(['pilot', ...LIVE_SMALL, '--ceiling-usd', '5', '--out', out], cli.io)).toBe(
      2,
    );
    expect(cli.err()).toContain('provider slug moonshotai/mxfp4 matches no endpoint');
    expect(fake.completions()).toBe(0);
    expect(existsSync(out)).toBe(false);
  });

  it('refuses to start the scored run when the smoke check fails (exit 4), sending nothing scored', async () => {
    // the allowlist resolves, but the smoke reply comes from a provider outside it (as the excluded Relace smoke did)
    const fake = fakeOpenRouter({ answerWith: 'capacity-keeper', answeredBy: 'Relace' });
    const cli = io({ env: { OPENROUTER_API_KEY: KEY }, fetch: fake.fetch });
    const out = join(root, 'smoke-fails');
    expect(
      await runCli(
        ['pilot', ...LIVE_SMALL, ...NO_RELEASE, '--ceiling-usd', '5', '--out', out],
        cli.io,
      ),
    ).toBe(4);
    expect(cli.err()).toContain('smoke check failed for kimi-k3');
    expect(fake.completions()).toBe(1);
    expect(existsSync(join(out, 'attempts.jsonl'))).toBe(false);
    const smoke = JSON.parse(readFileSync(join(out, 'smoke.jsonl'), 'utf8').trim()) as SmokeResult;
    expect(smoke).toMatchObject({ passed: false, evidence: 'excluded' });
    expect(JSON.parse(readFileSync(join(out, 'status.json'), 'utf8'))).toMatchObject({
      state: 'stopped',
      stop: { kind: 'smoke' },
      exitCode: 4,
    });
    // resuming does not get around it either
    const again = io({ env: { OPENROUTER_API_KEY: KEY }, fetch: fake.fetch });
    expect(await runCli(['pilot', '--resume', out], again.io)).toBe(4);
  });

  it('stops cleanly at the ceiling, says so in the run folder, and exits 3', async () => {
    // each completion is charged 0.1 USD; one reservation is about 0.19 USD (safety prices, 4096
    // output tokens, 25 % margin): the third reservation would cross 0.3 USD
    const fake = fakeOpenRouter({ answerWith: 'capacity-keeper', costUsd: 0.1 });
    const cli = io({ env: { OPENROUTER_API_KEY: KEY }, fetch: fake.fetch });
    const out = join(root, 'ceiling');
    expect(
      await runCli(
        ['pilot', ...LIVE_SMALL, '--ceiling-usd', '0.3', '--concurrency', '1', '--out', out],
        cli.io,
      ),
    ).toBe(3);
    const status = JSON.parse(readFileSync(join(out, 'status.json'), 'utf8')) as RunStatus;
    expect(status).toMatchObject({ state: 'stopped', exitCode: 3, stop: { kind: 'ceiling' } });
    expect(status.spend.committedUsd).toBeLessThanOrEqual(0.3);
    const blocks = JSON.parse(readFileSync(join(out, 'blocks.json'), 'utf8')) as BlockStatus[];
    expect(blocks.some((block) => block.status !== 'complete')).toBe(true);
    expect(cli.err()).toContain('STOP (ceiling)');
    const ledger = readFileSync(join(out, 'ledger.jsonl'), 'utf8');
    expect(ledger).toContain('"kind":"stop"');
    // the incomplete run is still published, with its stop reason
    expect(existsSync(join(out, 'release', 'SHA256SUMS'))).toBe(true);
  });

  it('runs against chi serve via --base-url and labels the results as scripted baseline', async () => {
    const server = await serveScriptedSystem({ system: 'capacity-keeper' });
    try {
      const cli = io();
      const out = join(root, 'served');
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
          '--ceiling-usd',
          '0',
          '--out',
          out,
          '--no-release',
        ],
        cli.io,
      );
      expect(code).toBe(0);
      const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as {
        systems: { evidenceClass: string }[];
        evidenceClass: string;
      };
      expect(manifest.systems[0]?.evidenceClass).toBe('scripted_baseline');
      expect(manifest.evidenceClass).toBe('scripted_baseline');
      const smoke = JSON.parse(
        readFileSync(join(out, 'smoke.jsonl'), 'utf8').trim(),
      ) as SmokeResult;
      expect(smoke).toMatchObject({
        passed: true,
        evidence: 'excluded',
        checks: { allowlistResolved: null, priceKnown: null, replyParsed: true },
      });
      // the same folder cannot be reused for a new run
      const again = io();
      expect(await runCli(['pilot', '--systems', 'perfect', '--out', out], again.io)).toBe(2);
      expect(again.err()).toMatch(
        /runDir: .* already exists and is not empty: choose another --out, or --resume it/,
      );
    } finally {
      await server.close();
    }
  });

  it('runs the offline pilot, writes a release that chi verify accepts, and chi score rewrites it identically', async () => {
    const cli = io();
    const out = join(root, 'offline');
    const code = await runCli(
      [
        'pilot',
        '--systems',
        'capacity-keeper,abstainer',
        '--replicates',
        '2',
        '--loads',
        '32,64',
        '--out',
        out,
      ],
      cli.io,
    );
    expect(code).toBe(0);
    const releaseDir = cli.out().trim().split('\n').pop() as string;
    expect(releaseDir).toBe(join(out, 'release'));
    expect(cli.err()).toMatch(/chi: finished in [0-9.]+ s \(exit 0\)/);
    const sums = readFileSync(join(releaseDir, 'SHA256SUMS'), 'utf8');
    const verify = io();
    expect(await runCli(['verify', releaseDir], verify.io)).toBe(0);
    expect(verify.out()).toMatch(/^OK: /);
    const score = io();
    expect(await runCli(['score', out], score.io)).toBe(0);
    expect(readFileSync(join(releaseDir, 'SHA256SUMS'), 'utf8')).toBe(sums);
  }, 120_000);
});
