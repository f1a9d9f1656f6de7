import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BlockStatus, LedgerEntry, RunManifest, RunStatus, SmokeResult } from '@chi/spec';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { captureIo } from '../__fixtures__/cli-io';
import { fakeOpenRouter } from '../__fixtures__/fake-openrouter';
import { serveScriptedSystem } from '../endpoints/serve';
import { runChi as runView } from './chi-entry';
import { COMMAND_USAGE } from './cli-help';
import type { CliIo } from './cli-io';
import { runCli } from './cli-main';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'chi-cli-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const io = (overrides: Partial<CliIo> = {}) => captureIo({ cwd: root, ...overrides });

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
    const pkg = JSON.parse(
      readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
    ) as {
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
        'chi: --concurrency: expected an integer in 1-64, found "0"\n',
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
        'chi: --systems: unknown scripted system "oracle"; expected perfect, capacity-keeper, latest-wins, confabulator, abstainer or imitator (with --calibration)\n',
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

  it('--plan states what the planned worlds can resolve, for a given target half-width', async () => {
    const cli = io();
    expect(
      await runCli(['pilot', '--plan', '--replicates', '4', '--target-half-width', '0.2'], cli.io),
    ).toBe(0);
    expect(cli.out()).toContain('Precision with 4 planned world(s), 95% intervals');
    // 1.96 x 0.5 / sqrt(4) = 0.490; (1.96 x 0.5 / 0.2)^2 = 24.01 -> 25 worlds
    expect(cli.out()).toMatch(/Q_M per load\s+0\.500\s+0\.490\s+25\s/);
    const bad = io();
    expect(await runCli(['pilot', '--plan', '--target-half-width', '0'], bad.io)).toBe(2);
    expect(bad.err()).toContain('--target-half-width');
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
    // output tokens, 25 % margin), so no block's worst case (every request with every retry) fits
    // in 0.3 USD: block admission starts none and stops at once
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
  }, 300_000);

  it('--compare-to freezes the reference in the manifest; the release compares against it and verifies', async () => {
    const cli = io();
    const out = join(root, 'compare-to');
    const args = ['pilot', '--systems', 'perfect,capacity-keeper,abstainer', '--replicates', '2'];
    const small = ['--loads', '32', '--no-history', '--no-behavior', '--resamples', '50'];
    expect(await runCli([...args, ...small, '--compare-to', 'perfect', '--out', out], cli.io)).toBe(
      0,
    );
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as RunManifest;
    expect(manifest.analysis.compareTo).toBe('perfect');
    const releaseDir = join(out, 'release');
    const data = JSON.parse(
      readFileSync(join(releaseDir, 'chart-data', 'chart-data.json'), 'utf8'),
    ) as { comparisons: { referenceSystem: string; rows: { systemA: string; systemB: string }[] } };
    expect(data.comparisons.referenceSystem).toBe('perfect');
    expect(new Set(data.comparisons.rows.map((r) => `${r.systemA}-${r.systemB}`))).toEqual(
      new Set(['capacity-keeper-perfect', 'abstainer-perfect']),
    );
    expect(await runCli(['verify', releaseDir], io().io)).toBe(0);
    // the release sizes the next plan from its per-world values
    const plan = io();
    expect(await runCli(['pilot', '--plan', '--plan-from', releaseDir], plan.io)).toBe(0);
    expect(plan.out()).toContain(`variance model: per-world values of ${releaseDir}`);
    const bad = io();
    expect(
      await runCli([...args, ...small, '--compare-to', 'nobody', '--out', join(root, 'x')], bad.io),
    ).toBe(2);
    expect(bad.err()).toContain('compareTo');
  }, 300_000);

  it('prints the help of every command with --help (exit 0)', async () => {
    for (const command of [
      'pilot',
      'smoke',
      'serve',
      'score',
      'verify',
      'init',
      'export',
      'view',
      'templates',
    ]) {
      for (const flag of ['--help', '-h']) {
        const cli = io();
        expect(await runCli([command, flag], cli.io), `${command} ${flag}`).toBe(0);
        expect(cli.out()).toMatch(new RegExp(`^chi ${command} — `));
        expect(cli.out()).toContain(`chi ${command}`);
        expect(cli.err()).toBe('');
      }
    }
    const version = io();
    expect(await runCli(['--version'], version.io)).toBe(0);
    expect(version.out()).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it('treats a missing folder as a usage error (exit 2) with one line, not a raw ENOENT', async () => {
    for (const argv of [
      ['score', 'no-such-run'],
      ['pilot', '--resume', 'no-such-run'],
    ]) {
      const cli = io();
      expect(await runCli(argv, cli.io), argv.join(' ')).toBe(2);
      expect(cli.err()).toMatch(/no-such-run does not exist or is not a folder\n$/);
      expect(cli.err()).not.toContain('ENOENT');
    }
    const notRun = io();
    expect(await runCli(['score', '.'], notRun.io)).toBe(2);
    expect(notRun.err()).toContain('holds no manifest.json');
  });

  it('names the smallest load in CLI terms for --loads 10 (exit 2)', async () => {
    const cli = io();
    expect(await runCli(['pilot', '--loads', '10', '--plan'], cli.io)).toBe(2);
    expect(cli.err()).toBe(
      'chi: --loads: each load must be at least 32 (8 probes in each of the six strata need that many keys), found 10\n',
    );
  });

  it('ends with headline numbers then the release path; shows release progress; no $0 noise offline', async () => {
    const cli = io();
    const out = join(root, 'headline');
    const code = await runCli(
      [
        'pilot',
        '--systems',
        'perfect,abstainer',
        '--replicates',
        '2',
        '--loads',
        '32,64',
        '--no-history',
        '--no-behavior',
        '--resamples',
        '50',
        '--out',
        out,
      ],
      cli.io,
    );
    expect(code).toBe(0);
    const lines = cli.out().trimEnd().split('\n');
    expect(lines[lines.length - 1]).toBe(join(out, 'release'));
    expect(lines.slice(0, -1)).toEqual([
      'EIMC (largest tested load with Q_M >= tau; >=N lower bound, none = no passing load) — scripted baselines, not model measurements:',
      '  system       tau 0.7   tau 0.8   tau 0.9   worlds',
      '  perfect         >=64      >=64      >=64      2/2',
      '  abstainer       none      none      none      2/2',
      'Requests: 24 of 24 resolved, 0 failed, 0 not sent; blocks: 6 complete, 0 incomplete; no spend (no paid request)',
    ]);
    expect(cli.err()).not.toContain('ceiling');
    for (const step of [
      'writing the CHIS entries',
      'reading the run folder',
      'computing the clustered-bootstrap intervals (50 resamples)',
      'release files',
      'writing SHA256SUMS',
    ])
      expect(cli.err()).toContain(step);
    // chi export inspect: one Inspect log per system and experiment (memory and controls here).
    const exported = io();
    expect(await runCli(['export', 'inspect', out, 'inspect-logs'], exported.io)).toBe(0);
    expect(exported.out()).toBe(`${join(root, 'inspect-logs')}\n`);
    const logs = readdirSync(join(root, 'inspect-logs')).sort();
    expect(logs.map((name) => name.replace(/^.*?_(chi_[a-z]+-[a-z-]+)_.*$/, '$1'))).toEqual([
      'chi_controls-abstainer',
      'chi_controls-perfect',
      'chi_memory-abstainer',
      'chi_memory-perfect',
      'listing.json', // Inspect's listing of the folder, for its viewer served as static files
    ]);
    expect(exported.err()).toContain('inspect view --log-dir inspect-logs');
  }, 300_000);

  it('after Ctrl-C prints the exact resume command with the block counts of status.json', async () => {
    const controller = new AbortController();
    let err = '';
    const out = join(root, 'interrupted dir');
    const cli = io({
      signal: controller.signal,
      // Ctrl-C as soon as the first progress line shows a finished request.
      stderr: {
        write: (text: string) => {
          err += text;
          if (/^[1-9]\d*\/\d+ requests/m.test(text)) controller.abort();
        },
      },
    });
    const argv = ['pilot', '--systems', 'capacity-keeper', '--replicates', '2', '--loads', '32'];
    const code = await runCli(
      [...argv, '--no-release', '--concurrency', '1', '--out', out],
      cli.io,
    );
    expect(code).toBe(3);
    const status = JSON.parse(readFileSync(join(out, 'status.json'), 'utf8')) as RunStatus;
    expect(status.stop?.kind).toBe('interrupted');
    expect(status.blocks.notStarted + status.blocks.incomplete).toBeGreaterThan(0);
    const { complete, incomplete, notStarted } = status.blocks;
    expect(err).toContain(
      `chi: interrupted: ${complete} block(s) complete, ${incomplete} incomplete, ${notStarted} not started (status.json); ${status.requests.notSent} request(s) not sent. Resume with:\n  chi pilot --resume '${out}' --concurrency 1 --no-release\n`,
    );
    // The printed command, run as printed, finishes the run.
    const resume = io();
    expect(
      await runCli(['pilot', '--resume', out, '--concurrency', '1', '--no-release'], resume.io),
    ).toBe(0);
    const finished = JSON.parse(readFileSync(join(out, 'status.json'), 'utf8')) as RunStatus;
    expect(finished.blocks).toMatchObject({ incomplete: 0, notStarted: 0 });
  }, 300_000);

  it('runs from a configuration file, lets flags win, and freezes the resolved options in the manifest', async () => {
    const init = io();
    expect(await runCli(['init', 'chi.config.json'], init.io)).toBe(0);
    const path = join(root, 'chi.config.json');
    const config = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    writeFileSync(
      path,
      JSON.stringify({
        ...config,
        systems: ['perfect'],
        replicates: 3,
        loads: [32],
        history: false,
        behavior: false,
        out: 'from-config',
      }),
    );
    const cli = io();
    const code = await runCli(
      ['pilot', '--config', 'chi.config.json', '--replicates', '1', '--no-release'],
      cli.io,
    );
    expect(code).toBe(0);
    const out = join(root, 'from-config');
    expect(cli.out()).toBe(`${out}\n`);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as RunManifest;
    expect(manifest.replicates).toBe(1);
    expect(manifest.configuration).toEqual({
      configFileSha256: createHash('sha256').update(readFileSync(path)).digest('hex'),
      options: {
        systems: ['perfect'],
        replicates: 1,
        loads: [32],
        batchSize: null,
        controls: true,
        history: false,
        behavior: false,
        ceilingUsd: 0,
        smokeCeilingUsd: 1,
        allowFailedSmoke: false,
        concurrency: 8,
        seed: 20260901,
        resamples: 2000,
        release: false,
      },
    });
    const bad = io();
    writeFileSync(path, JSON.stringify({ replicates: 'two' }));
    expect(await runCli(['pilot', '--config', 'chi.config.json'], bad.io)).toBe(2);
    expect(bad.err()).toMatch(/^chi: chi\.config\.json: replicates: /);
  }, 300_000);

  it("carries perfect's uncapped reference condition over --base-url", async () => {
    const server = await serveScriptedSystem({ system: 'perfect' });
    try {
      const cli = io();
      const out = join(root, 'served-perfect');
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
          '128',
          '--no-controls',
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
      const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as RunManifest;
      expect(manifest.systems[0]).toMatchObject({
        evidenceClass: 'scripted_baseline',
        uncappedNotebook: true,
        scripted: { seed: 20260901 },
      });
      const notebooks = join(out, 'notebooks', manifest.systems[0]?.id ?? '', 'memory');
      for (const name of readdirSync(notebooks)) {
        const snapshot = JSON.parse(readFileSync(join(notebooks, name), 'utf8')) as {
          capBytes: number | null;
          truncated: boolean;
          originalBytes: number;
        };
        expect(snapshot).toMatchObject({ capBytes: null, truncated: false });
        expect(snapshot.originalBytes).toBeGreaterThan(6000);
      }
    } finally {
      await server.close();
    }
  }, 300_000);

  it('chi view serves a run on 127.0.0.1 until stopped, and writes a bundle', async () => {
    const run = io();
    expect(
      await runCli(
        [
          'pilot',
          '--systems',
          'perfect',
          '--replicates',
          '1',
          '--loads',
          '32',
          '--no-history',
          '--no-behavior',
          '--no-controls',
          '--resamples',
          '20',
          '--out',
          'run',
        ],
        run.io,
      ),
    ).toBe(0);
    let stop = () => {};
    const untilStopped = new Promise<void>((done) => {
      stop = done;
    });
    let announce: (url: string) => void = () => {};
    const announced = new Promise<string>((done) => {
      announce = done;
    });
    const view = io({
      untilStopped,
      stdout: { write: (text: string) => announce(text.trim()) },
    });
    const exit = runCli(['view', 'run'], view.io);
    const url = await announced;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const progress = (await (await fetch(`${url}api/progress`)).json()) as { state: string };
    expect(progress.state).toBe('completed');
    expect(await (await fetch(url)).text()).toContain('<title>chi view</title>');
    stop();
    expect(await exit).toBe(0);

    const bundle = io();
    expect(await runCli(['view', 'run', '--bundle', 'viewer'], bundle.io)).toBe(0);
    expect(bundle.out().trim()).toBe(join(root, 'viewer', 'index.html'));
    expect(readFileSync(join(root, 'viewer', 'data.js'), 'utf8')).toMatch(
      /^window\.CHI_VIEW_DATA = /,
    );

    // chi view RUN_A RUN_B: the two side by side, paired by world (here a run with itself)
    let stopCompare = () => {};
    const compareStopped = new Promise<void>((done) => {
      stopCompare = done;
    });
    let announceCompare: (url: string) => void = () => {};
    const compareUrl = new Promise<string>((done) => {
      announceCompare = done;
    });
    const compare = io({
      untilStopped: compareStopped,
      stdout: { write: (text: string) => announceCompare(text.trim()) },
    });
    const compared = runCli(['view', 'run', 'run'], compare.io);
    const pageUrl = await compareUrl;
    expect(pageUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/compare$/);
    const page = await (await fetch(pageUrl)).text();
    expect(page).toContain('data-testid="compare-table"');
    expect(page).toContain('Same configuration and model on both sides.');
    stopCompare();
    expect(await compared).toBe(0);

    // chi view RUN_A RUN_B --bundle OUT: the same comparison as static pages, no server
    const compareBundle = io();
    expect(await runCli(['view', 'run', 'run', '--bundle', 'cmp'], compareBundle.io)).toBe(0);
    expect(compareBundle.out().trim()).toBe(join(root, 'cmp', 'index.html'));
    const bundled = readFileSync(join(root, 'cmp', 'index.html'), 'utf8');
    expect(bundled).toContain('data-testid="compare-table"');
    expect(bundled).toContain('Same configuration and model on both sides.');
    // a folder that is no run is refused, naming it (exit 2), and nothing is written
    const noRun = io();
    expect(await runCli(['view', 'run', '.', '--bundle', 'cmp2'], noRun.io)).toBe(2);
    expect(noRun.err()).toContain('expected a run folder or a release holding manifest.json');
    expect(existsSync(join(root, 'cmp2'))).toBe(false);

    // a damaged run is exit 5 naming the file, as chi view --help says: a manifest that is not
    // JSON, and a line inside the attempt log that is not a record (bundling reads every record)
    const damaged = (name: string, file: string, edit: (text: string) => string) => {
      cpSync(join(root, 'run'), join(root, name), { recursive: true });
      writeFileSync(join(root, name, file), edit(readFileSync(join(root, name, file), 'utf8')));
    };
    damaged('bad-manifest', 'manifest.json', (text) => text.slice(0, 40));
    damaged('bad-log', 'attempts.jsonl', (text) => text.replace(/\n.*\n/, '\ngarbage\n'));
    for (const [name, file] of [
      ['bad-manifest', 'manifest.json'],
      ['bad-log', 'attempts.jsonl'],
    ]) {
      const bad = io();
      expect(await runView(['view', name as string, '--bundle', `${name}-out`], bad.io)).toBe(5);
      expect(bad.err()).toContain(file);
      expect(bad.err()).not.toMatch(/\n\s+at /);
    }
    expect(COMMAND_USAGE.view).toMatch(/^ {2}5 {2}damaged run folder/m);
  });

  it('chi view on a folder that is no run exits 2 naming what is missing', async () => {
    const cli = io();
    expect(await runCli(['view', '.'], cli.io)).toBe(2);
    expect(cli.err()).toContain('expected a run folder or a release holding manifest.json');
  });
});
