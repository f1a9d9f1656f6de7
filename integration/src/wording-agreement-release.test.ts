/**
 * Probe-wording invariance (opt-in) in a real offline pilot run: every behavioral item is asked
 * under both declared wordings, and the release reports per-feature agreement. A
 * wording-invariant scripted system agrees everywhere; the wording-sensitive baseline, which
 * answers wrongly with probability 0.5 per item under the second wording only, does not.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChartData } from '@chi/analysis';
import type { WordingAgreement } from '@chi/analysis/internal';
import {
  createScriptedModel,
  defaultOfflineSettings,
  runPilot,
  scriptedSystemSpec,
} from '@chi/pilot';
import { verifyRelease, writeRelease } from '@chi/report';
import type { AttemptRecord, RunPlan } from '@chi/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../packages/report/src/__fixtures__/temp-dir';
import { fixedClock } from './__fixtures__/fixed-clock';

describe('probe-wording invariance (opt-in)', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let runDir: string;
  let outDir: string;
  let data: ChartData;
  beforeAll(async () => {
    dir = await tempDir('wording');
    runDir = join(dir.path, 'run');
    outDir = join(dir.path, 'release');
    const now = fixedClock('2026-09-01T00:00:00.000Z');
    const settings = defaultOfflineSettings({
      systems: ['perfect', 'wording-sensitive'].map((name) => scriptedSystemSpec(name)),
      replicates: 3,
      loads: [],
      controlsAtLoad: null,
      history: false,
      resamples: 200,
      probeWordings: true,
    });
    const models = new Map(settings.systems.map((s) => [s.id, createScriptedModel(s.id, { now })]));
    const outcome = await runPilot({
      settings,
      runDir,
      models,
      concurrency: 1,
      release: false,
      now,
    });
    expect(outcome.exitCode).toBe(0);
    await writeRelease({ runDir, outDir });
    data = JSON.parse(await readFile(join(outDir, 'chart-data', 'chart-data.json'), 'utf8'));
  });
  afterAll(async () => dir.remove());

  const rows = (system: string) =>
    (data.wordingAgreement ?? []).filter((row) => row.systemId === system);

  it('plans each half under both wordings in the same block, with the second wording marked', async () => {
    const plan = JSON.parse(await readFile(join(runDir, 'plan.json'), 'utf8')) as RunPlan;
    const perfect = plan.requests.filter((r) => r.systemId === 'perfect');
    expect(perfect).toHaveLength(3 * 4);
    expect(perfect.filter((r) => r.wording === 2).map((r) => r.step)).toEqual(
      Array.from({ length: 3 }, () => ['half1.w2', 'half2.w2']).flat(),
    );
    expect(new Set(perfect.map((r) => r.blockId)).size).toBe(3);
  });

  it('separates a wording-invariant system from the wording-sensitive baseline', () => {
    const perfect = rows('perfect');
    expect(perfect.map((row) => row.feature)).toEqual(['R', 'C', 'A', 'I', 'A-frame-change']);
    for (const row of perfect) {
      expect(row.agreement.estimate, row.feature).toBe(1);
      expect([row.agreement.lower, row.agreement.upper]).toEqual([1, 1]);
      expect(row.worldSeeds).toHaveLength(3);
    }
    const sensitive = rows('wording-sensitive');
    const pooled = sensitive
      .filter((row) => row.feature !== 'A-frame-change')
      .reduce(
        (sum, row) => ({ n: sum.n + row.pooled.numerator, d: sum.d + row.pooled.denominator }),
        {
          n: 0,
          d: 0,
        },
      );
    // 3 worlds x 24 items; each flips with probability 0.5 under the second wording only
    expect(pooled.d).toBe(72);
    expect(pooled.n / pooled.d).toBeGreaterThan(0.3);
    expect(pooled.n / pooled.d).toBeLessThan(0.7);
    // every feature: clearly below the invariant system's 1, whose interval is [1, 1]
    for (const row of sensitive)
      expect(row.agreement.estimate as number, row.feature).toBeLessThanOrEqual(0.75);
    // with three worlds an interval can still reach 1 (a replicate of one lucky world); A and I do not
    for (const feature of ['A', 'I'] as const) {
      const row = sensitive.find((r) => r.feature === feature) as WordingAgreement;
      expect(row.agreement.upper as number).toBeLessThan(1);
    }
    // the first wording alone cannot tell them apart: both answer every item correctly there
    const accuracy = (system: string) =>
      data.behavior
        .filter((p) => p.systemId === system && p.indicator !== 'A-frame-change')
        .map((p) => p.value.estimate);
    expect(accuracy('perfect')).toEqual([1, 1, 1, 1]);
    expect(accuracy('wording-sensitive')).toEqual([1, 1, 1, 1]);
  });

  it('counts agreement by hand from the attempt log: second-wording answers equal to the first', async () => {
    const replies = new Map<string, { id: string; answer: string | null }[]>();
    for (const line of (await readFile(join(runDir, 'attempts.jsonl'), 'utf8')).split('\n')) {
      if (line === '') continue;
      const attempt = JSON.parse(line) as AttemptRecord;
      if (attempt.phase === 'after_response' && attempt.systemId === 'wording-sensitive')
        replies.set(attempt.requestId, JSON.parse(attempt.result?.text ?? '[]'));
    }
    let agreeing = 0;
    let paired = 0;
    for (const [requestId, second] of replies) {
      if (!requestId.endsWith('.w2')) continue;
      const first = new Map(
        (replies.get(requestId.slice(0, -3)) ?? []).map((entry) => [entry.id, entry.answer]),
      );
      for (const entry of second) {
        paired++;
        if (first.get(entry.id) === entry.answer) agreeing++;
      }
    }
    const sensitive = rows('wording-sensitive').filter((row) => row.feature !== 'A-frame-change');
    expect(paired).toBe(72);
    expect(sensitive.reduce((sum, row) => sum + row.pooled.numerator, 0)).toBe(agreeing);
  });

  it('reports the agreement in the report and recomputes it in chi verify', async () => {
    const report = await readFile(join(outDir, 'report.md'), 'utf8');
    expect(report).toContain('### Probe-wording invariance');
    expect(report).toContain('Do profiles remain stable under equivalent probe wording?');
    expect((await verifyRelease(outDir)).mismatches).toEqual([]);
    const path = join(outDir, 'chart-data', 'chart-data.json');
    const edited = JSON.parse(await readFile(path, 'utf8')) as ChartData;
    const first = (edited.wordingAgreement ?? [])[5] as WordingAgreement;
    (first.agreement as { estimate: number }).estimate = 1;
    await writeFile(path, JSON.stringify(edited));
    const mismatches = (await verifyRelease(outDir)).mismatches;
    expect(mismatches.some((m) => m.file === 'chart-data/chart-data.json')).toBe(true);
  });
});
