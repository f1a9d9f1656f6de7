import type { ChartData } from '@chi/report';
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

const eimc = (systemId: string, tau: number, value: number | null, kind: string) => ({
  systemId,
  tau,
  value,
  status: kind,
});

// Only the fields formatHeadline reads; the rest of ChartData does not matter here.
const chartData = (live: boolean) =>
  ({
    run: {
      systems: [
        { id: 'keeper', evidenceClass: live ? 'live_model' : 'scripted_baseline' },
        { id: 'abstainer', evidenceClass: 'scripted_baseline' },
      ],
    },
    eimc: [
      eimc('keeper', 0.9, 64, 'capacity'),
      eimc('keeper', 0.7, 256, 'lower_bound'),
      eimc('abstainer', 0.7, null, 'no_passing_load'),
      eimc('abstainer', 0.9, null, 'no_passing_load'),
    ],
  }) as unknown as ChartData;

describe('run summary', () => {
  it('prints EIMC per system and tau, the failures and the spend', () => {
    expect(formatHeadline(chartData(false), status())).toEqual([
      'EIMC (largest tested load with Q_M >= tau; >=N lower bound, none = no passing load) — scripted baselines, not model measurements:',
      '  system       tau 0.7   tau 0.9',
      '  keeper         >=256        64',
      '  abstainer       none      none',
      'Requests: 38 of 40 resolved, 3 failed, 2 not sent; blocks: 7 complete, 1 incomplete; no spend (no paid request)',
    ]);
    const live = formatHeadline(
      chartData(true),
      status({ spend: { ceilingUsd: 25, committedUsd: 3, chargedUsd: 2.5 } }),
    );
    expect(live[0]).not.toContain('scripted');
    expect(live[4]).toContain('spent 2.50 USD of a 25.00 USD ceiling');
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
