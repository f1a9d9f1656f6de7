import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { captureIo } from '../__fixtures__/cli-io';
import {
  type DivergenceEndpoint,
  startDivergenceEndpoint,
} from '../__fixtures__/divergence-endpoint';
import { testFolder } from '../__fixtures__/test-folder';
import { runCli } from '../cli/cli-main';

let endpoint: DivergenceEndpoint | null = null;

afterEach(async () => {
  await endpoint?.close();
  endpoint = null;
});

function liveArgs(server: DivergenceEndpoint, extra: readonly string[] = []): string[] {
  return [
    'pilot',
    '--protocol',
    'divergence-v0.1',
    '--base-url',
    server.baseUrl,
    '--models',
    server.model,
    '--ceiling-usd',
    '1',
    '--replicates',
    '1',
    '--resamples',
    '20',
    ...extra,
  ];
}

function lines(path: string): Record<string, unknown>[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const PER_WORLD = 287;
/** The runner's reason for a request never sent because one it depends on ended its instance. */
const BLOCKED = 'not sent: a request it depends on produced no notebook';

/** The answered requests of a run folder: the `after_response` records of its attempt log. */
function answered(run: string): Record<string, unknown>[] {
  return lines(join(run, 'attempts.jsonl')).filter((record) => record.phase === 'after_response');
}

describe('chi pilot --protocol divergence-v0.1 against a live (loopback) endpoint', () => {
  it('--plan prices the chosen systems with their declared prices and sends nothing', async () => {
    endpoint = await startDivergenceEndpoint();
    const cwd = testFolder('chi-divergence-live-plan-');
    const cli = captureIo({ cwd });
    const args = liveArgs(endpoint, ['--plan', '--price', `${endpoint.model}=1,2`]);
    expect(await runCli(args, cli.io)).toBe(0);
    expect(cli.out()).toContain(`total requests: ${PER_WORLD}`);
    const row = cli
      .out()
      .split('\n')
      .find((line) => line.includes(endpoint?.model ?? '-'));
    expect(row).toBeDefined();
    // 287 requests of up to 4096 output tokens at 2 USD per million: far above zero
    const worst = Number(row?.trim().split(/\s+/)[3]);
    expect(worst).toBeGreaterThan(0.5);
    expect(cli.out()).toContain('Ceiling given: 1 USD');
    expect(endpoint.scored()).toBe(0);
  });

  it('runs after a passing smoke check, labels the served scripted system, and verifies', async () => {
    endpoint = await startDivergenceEndpoint();
    const cwd = testFolder('chi-divergence-live-');
    const cli = captureIo({ cwd });
    expect(await runCli(liveArgs(endpoint, ['--out', 'run']), cli.io)).toBe(0);
    const run = join(cwd, 'run');
    expect(lines(join(run, 'smoke.jsonl')).map((record) => record.passed)).toEqual([true]);
    expect(answered(run)).toHaveLength(PER_WORLD);
    expect(endpoint.scored()).toBe(PER_WORLD);
    // every scored request reserved in the run's ledger before it was sent
    expect(existsSync(join(run, 'ledger.jsonl'))).toBe(true);
    const manifest = JSON.parse(readFileSync(join(run, 'manifest.json'), 'utf8'));
    expect(manifest.ceilingUsd).toBe(1);
    expect(manifest.requireSmoke).toBe(true);
    expect(manifest.systems[0]).toMatchObject({
      kind: 'openai-compatible',
      evidenceClass: 'scripted_baseline',
    });
    const release = join(run, 'release');
    expect(readFileSync(join(release, 'report.md'), 'utf8')).toContain(
      'SCRIPTED BASELINE, not a model',
    );
    const verify = captureIo({ cwd });
    expect(await runCli(['verify', release], verify.io)).toBe(0);
  });

  it('exits 4 before any scored request when the smoke check fails', async () => {
    endpoint = await startDivergenceEndpoint({ failSmoke: true });
    const cwd = testFolder('chi-divergence-smoke-');
    const cli = captureIo({ cwd });
    expect(await runCli(liveArgs(endpoint, ['--out', 'run']), cli.io)).toBe(4);
    expect(cli.err()).toContain('smoke check failed');
    expect(endpoint.scored()).toBe(0);
    const attempts = join(cwd, 'run', 'attempts.jsonl');
    expect(existsSync(attempts) ? readFileSync(attempts, 'utf8') : '').toBe('');
  });

  it('excludes an instance ended by an infrastructure failure, with the reason, and exits 3', async () => {
    endpoint = await startDivergenceEndpoint();
    const cwd = testFolder('chi-divergence-infra-');
    // the first scored request is arm A's baseline probe
    const refused = endpoint.armNth(1, 'no-route');
    const cli = captureIo({ cwd });
    // one request in flight, so the first one the endpoint receives is the plan's first
    const args = liveArgs(endpoint, ['--out', 'run', '--concurrency', '1']);
    expect(await runCli(args, cli.io)).toBe(3);
    await refused;
    const run = join(cwd, 'run');
    const calls = answered(run);
    // arm A sent its failed first call and nothing more (13 planned): 12 never sent
    expect(calls).toHaveLength(PER_WORLD - 12);
    const armA = /\.divergence\.w\d+\.A\.c\d+\./;
    expect(calls.filter((call) => armA.test(String(call.requestId)))).toHaveLength(1);
    const analysis = JSON.parse(readFileSync(join(run, 'release', 'divergence.json'), 'utf8'));
    expect(analysis.excludedInstances).toEqual([
      {
        systemId: analysis.systems[0].systemId,
        worldSeed: expect.any(Number),
        arm: 'A',
        requestId: expect.stringContaining('.A.c0.probe.0'),
        reason: `1 x infrastructure failure: no_route; 12 x ${BLOCKED}`,
      },
    ]);
    const excess = analysis.systems[0].trajectory[0].series.excess;
    expect(excess.estimate).toBeNull();
    expect(excess.reason).toBe(`A excluded: 1 x infrastructure failure: no_route; 12 x ${BLOCKED}`);
    expect(readFileSync(join(run, 'release', 'report.html'), 'utf8')).toContain(
      'infrastructure failure: no_route',
    );
    expect(cli.err()).toContain('incomplete instance');
    const verify = captureIo({ cwd });
    expect(await runCli(['verify', join(run, 'release')], verify.io)).toBe(0);
  });

  it('stops at the ceiling: the ledger refuses past it, the run stops and publishes nothing', async () => {
    endpoint = await startDivergenceEndpoint({ costUsd: 0.002 });
    const cwd = testFolder('chi-divergence-ceiling-');
    const cli = captureIo({ cwd });
    const args = liveArgs(endpoint, ['--out', 'run', '--price', `${endpoint.model}=1,2`]);
    args[args.indexOf('--ceiling-usd') + 1] = '0.05';
    expect(await runCli(args, cli.io)).toBe(3);
    const run = join(cwd, 'run');
    // the runner's rule: a refused reservation stops the run (no release of a partial run)
    expect(cli.err()).toContain('the run stopped before every request ended');
    expect(existsSync(join(run, 'release', 'divergence.json'))).toBe(false);
    const status = JSON.parse(readFileSync(join(run, 'status.json'), 'utf8'));
    expect(status.stop.kind).toBe('ceiling');
    // a refused request never reached the endpoint
    const sent = answered(run).filter(
      (call) => (call.result as { failure: string }).failure !== 'budget_refused',
    );
    expect(endpoint.scored()).toBe(sent.length);
    expect(endpoint.scored()).toBeLessThan(PER_WORLD);
  });
});
