import type { RunChartData } from '@chi/analysis';
import type { RunStatus } from '@chi/spec';
import { describe, expect, it } from 'vitest';
import { formatHeadline, formatResumeHint, shellQuote } from './run-summary';

const status = (overrides: Partial<RunStatus> = {}): RunStatus => ({
  kind: 'run-status',
  runId: 'r1',
  manifestSha256: 'a'.repeat(64),
  state: 'completed',
  startedAt: '2026-09-01T00:00:00.000Z',
  updatedAt: '2026-09-01T00:00:01.000Z',
  finishedAt: '2026-09-01T00:00:01.000Z',
  resumes: 0,
  requests: { total: 40, resolved: 38, failed: 3, abandoned: 0, notSent: 2 },
  spend: { ceilingUsd: 0, committedUsd: 0, chargedUsd: 0 },
  stop: null,
  blocks: { complete: 7, incomplete: 1, notStarted: 2 },
  elapsedMs: 1000,
  exitCode: 3,
  ...overrides,
});

const eimc = (
  systemId: string,
  tau: number,
  value: number | null,
  kind: string,
  worlds: number,
) => ({ systemId, tau, value, status: kind, worlds });

/** One block per world; the first `complete` worlds complete, the rest not started. */
const blocks = (seeds: readonly number[], complete: number) =>
  seeds.map((worldSeed, index) => ({
    blockId: `memory.w${worldSeed}.n32`,
    experiment: 'memory',
    worldSeed,
    load: 32,
    status: index < complete ? 'complete' : 'not_started',
    reasons: [],
  }));

// Only the fields formatHeadline reads; the rest of RunChartData does not matter here.
const chartData = (
  live: boolean,
  worlds = 4,
  completeWorlds = worlds,
  classes: readonly [string, string] = [
    live ? 'live_model' : 'scripted_baseline',
    'scripted_baseline',
  ],
) => {
  const seeds = Array.from({ length: worlds }, (_, i) => 100 + i);
  return {
    run: {
      systems: [
        { id: 'keeper', evidenceClass: classes[0] },
        { id: 'abstainer', evidenceClass: classes[1] },
      ],
      worldSeeds: seeds,
    },
    missingness: { blocks: blocks(seeds, completeWorlds) },
    experiments: {
      memory: {
        eimc: [
          eimc('keeper', 0.9, 64, 'capacity', completeWorlds),
          eimc('keeper', 0.7, 256, 'lower_bound', completeWorlds),
          eimc('abstainer', 0.7, null, 'no_passing_load', completeWorlds),
          eimc('abstainer', 0.9, null, 'no_passing_load', completeWorlds),
        ],
      },
    },
  } as unknown as RunChartData;
};

describe('run summary', () => {
  it('prints EIMC per system and tau, the failures and the spend', () => {
    expect(formatHeadline(chartData(false), status())).toEqual([
      'EIMC (largest tested load with Q_M >= tau; >=N lower bound, none = no passing load) — scripted baselines, not model measurements:',
      '  system       tau 0.7   tau 0.9   worlds',
      '  keeper         >=256        64      4/4',
      '  abstainer       none      none      4/4',
      'Requests: 38 of 40 resolved, 3 failed, 2 not sent; blocks: 7 complete, 1 incomplete, 2 not started; no spend (no paid request)',
    ]);
    const live = formatHeadline(
      chartData(true),
      status({ spend: { ceilingUsd: 25, committedUsd: 3, chargedUsd: 2.5 } }),
    );
    // a mixed run names the system that is not a live model, with what it is
    expect(live[0]).toContain(
      ' — not every system is a live model (abstainer: scripted baselines), those are not model measurements:',
    );
    expect(live[4]).toContain('spent 2.50 USD of a 25.00 USD ceiling');
    const allLive = formatHeadline(chartData(true, 4, 4, ['live_model', 'live_model']), status());
    expect(allLive[0]).toBe(
      'EIMC (largest tested load with Q_M >= tau; >=N lower bound, none = no passing load):',
    );
  });

  it('never calls an undeclared endpoint a scripted baseline (nor a live model)', () => {
    const unverified = formatHeadline(
      chartData(false, 4, 4, ['unverified_endpoint', 'unverified_endpoint']),
      status(),
    );
    expect(unverified[0]).not.toContain('scripted');
    expect(unverified[0]).toBe(
      'EIMC (largest tested load with Q_M >= tau; >=N lower bound, none = no passing load) — unverified endpoint: what served these answers was not declared; not labelled a live model:',
    );
    const mixed = formatHeadline(
      chartData(false, 4, 4, ['unverified_endpoint', 'scripted_baseline']),
      status(),
    );
    expect(mixed[0]).toContain(
      '(abstainer: scripted baselines; keeper: unverified endpoints (what served them was not declared))',
    );
  });

  it('says a stopped run is partial before any EIMC, with the worlds each EIMC rests on', () => {
    const lines = formatHeadline(chartData(false, 8, 1), status());
    expect(lines[1]).toContain('PARTIAL RUN — partial: 1 of 8 worlds complete (1 of 8 blocks)');
    expect(lines.findIndex((line) => line.includes('>=256'))).toBeGreaterThan(1);
    expect(lines.find((line) => line.includes('keeper'))).toMatch(/ 1\/8$/);
    // a complete run prints no partial line
    expect(formatHeadline(chartData(false), status()).join('\n')).not.toContain('partial');
  });

  it('prints the exact resume command with the counts of status.json', () => {
    expect(
      formatResumeHint(
        "/tmp/my runs/it's",
        status({ stop: { kind: 'interrupted', message: '' } }),
        {
          release: false,
          concurrency: 4,
        },
      ),
    ).toBe(
      "chi: interrupted: 7 block(s) complete, 1 incomplete, 2 not started (status.json); 2 request(s) not sent. Resume with:\n  chi pilot --resume '/tmp/my runs/it'\\''s' --concurrency 4 --no-release",
    );
    expect(shellQuote('/tmp/runs/a-1')).toBe('/tmp/runs/a-1');
  });
});
