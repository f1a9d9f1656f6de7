import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type ChartData,
  type ChartData as ChartDataFile,
  ChartDataSchema,
  chartDataFile,
  isMemoryObservation,
  isMemoryTraceLine,
  observationsOf,
  type RunScores,
  runChartData,
  traceLinesOf,
} from '@chi/analysis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixtureRun } from '../__fixtures__/fixture-run';
import { tempDir } from '../__fixtures__/temp-dir';
import { type RunRecords, readRunFolder } from '../run-folder/run-folder';
import { analyzeRun, defaultRunId } from './analyze-run';
import { scoreRun } from './score-run';

/** The analysis in the layout of `chart-data.json` (its experiment fields flat), as the tests read it. */
const analyzedFile = (...args: Parameters<typeof analyzeRun>): ChartDataFile =>
  chartDataFile(analyzeRun(...args));

describe('analyzeRun', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let records: RunRecords;
  let scores: RunScores;
  let data: ChartData;
  beforeAll(async () => {
    dir = await tempDir('analyze');
    await buildFixtureRun(dir.path, {
      seeds: [11, 12, 13],
      infrastructureFailures: [
        'forgetful.memory.w12.n16.probe.b0',
        'keeper.memory.w13.n16.probe.b0',
      ],
    });
    records = await readRunFolder(dir.path);
    scores = scoreRun(records);
    data = analyzedFile(records, scores);
  });
  afterAll(async () => dir.remove());

  it('produces chart data that satisfies its schema', () => {
    expect(() => ChartDataSchema.parse(data)).not.toThrow();
  });

  it('reads the primary checkpoint from the manifest (3 for a manifest from before it was frozen)', () => {
    expect(records.manifest.analysis.primaryCheckpoint).toBeUndefined();
    expect(data.run.analysis.primaryCheckpoint).toBe(3);
    const frozen = {
      ...records,
      manifest: {
        ...records.manifest,
        analysis: { ...records.manifest.analysis, primaryCheckpoint: 2 },
      },
    };
    expect(analyzedFile(frozen, scores).run.analysis.primaryCheckpoint).toBe(2);
  });

  it('uses complete blocks only and gives no interval below two complete worlds', () => {
    const point = data.memory.find(
      (p) => p.systemId === 'keeper' && p.condition === 'notebook' && p.load === 16,
    );
    expect(point?.blocks).toEqual({ planned: 3, complete: 1, incomplete: 2, missing: 0 });
    expect(point?.qualityScore).toMatchObject({
      estimate: 1,
      lower: null,
      upper: null,
      intervalNote: 'fewer_than_two_complete_worlds',
      worlds: 1,
    });
    expect(point?.exploratory).toBe(true);
  });

  it('computes Q_M of world-mean factors, not the mean of world Q_M', () => {
    // the oracle control at N=8 is complete in all three worlds (the notebook curve is not)
    const point = data.memory.find(
      (p) => p.systemId === 'forgetful' && p.condition === 'oracle' && p.load === 8,
    );
    const worlds = observationsOf(scores, 'memory', isMemoryObservation).filter(
      (o) =>
        o.systemId === 'forgetful' && o.condition === 'oracle' && o.load === 8 && o.blockComplete,
    );
    expect(worlds).toHaveLength(3);
    expect(point?.worldSeeds).toEqual([11, 12, 13]);
    const meanOf = (pick: (o: (typeof worlds)[number]) => number) =>
      worlds.reduce((s, o) => s + pick(o), 0) / worlds.length;
    const f = {
      r: meanOf((o) => o.score.factors.r),
      t: meanOf((o) => o.score.factors.t),
      s: meanOf((o) => o.score.factors.s),
      u: meanOf((o) => o.score.factors.u),
      i: meanOf((o) => o.score.factors.i),
      oneMinusF: meanOf((o) => o.score.factors.oneMinusF),
    };
    const expected = (f.r * f.t * f.s * f.u * f.i * f.oneMinusF) ** (1 / 6);
    expect(point?.qualityScore.estimate).toBeCloseTo(expected, 12);
    expect(point?.meanWithinWorldQualityScore.estimate).toBeCloseTo(
      meanOf((o) => o.score.qualityScore ?? 0),
      12,
    );
    expect(point?.factors.r.estimate).toBeCloseTo(f.r, 12);
    const pooledR = worlds.reduce((s, o) => s + o.score.strata.r.numerator, 0);
    expect(point?.strata.r).toEqual({ numerator: pooledR, denominator: 6, rate: pooledR / 6 });
  });

  it('reports EIMC with a status and never zero: the answer-key system passes every load (right-censored)', () => {
    const keeper = data.eimc.filter((e) => e.systemId === 'keeper');
    expect(keeper.map((e) => [e.tau, e.value, e.status])).toEqual([
      [0.7, 16, 'lower_bound'],
      [0.8, 16, 'lower_bound'],
      [0.9, 16, 'lower_bound'],
    ]);
    for (const e of data.eimc) expect(e.value === null ? e.status : e.value).not.toBe(0);
  });

  it('shows CHI as null with the reason', () => {
    expect(data.chi.value).toBeNull();
    expect(data.chi.reason.length).toBeGreaterThan(10);
  });

  it("records the catalog's quantization of each allowlisted endpoint, and nothing without a catalog", async () => {
    expect(data.run.systems.every((system) => system.quantization === undefined)).toBe(true);
    const other = await tempDir('analyze-catalog');
    try {
      await buildFixtureRun(other.path, { seeds: [11] });
      const price = { inputUsdPerToken: 0, outputUsdPerToken: 0, requestUsd: 0 };
      const endpoint = { providerName: 'P', maxCompletionTokens: null, contextLength: null, price };
      await writeFile(
        join(other.path, 'catalog.json'),
        JSON.stringify({
          kind: 'model-catalog',
          schemaVersion: 1,
          source: 'https://openrouter.ai/api/v1',
          fetchedAt: '2026-09-01T00:00:00.000Z',
          models: [
            {
              model: 'scripted/keeper',
              providers: ['p'],
              maxOutputTokens: 10,
              price,
              endpoints: [
                { ...endpoint, tag: 'p/fp8', quantization: 'fp8', allowed: true },
                { ...endpoint, tag: 'p/any', quantization: null, allowed: true },
                { ...endpoint, tag: 'q/fp4', quantization: 'fp4', allowed: false },
              ],
            },
          ],
        }),
      );
      const withCatalog = await readRunFolder(other.path);
      const systems = analyzedFile(withCatalog, scoreRun(withCatalog)).run.systems;
      expect(systems.find((system) => system.id === 'keeper')?.quantization).toEqual([
        'p/fp8: fp8',
        'p/any: unknown',
      ]);
      expect(systems.find((system) => system.id === 'forgetful')?.quantization).toBeUndefined();
    } finally {
      await other.remove();
    }
  });

  it('counts every probe of a complete world exactly once in the taxonomy', () => {
    const total = data.taxonomy.reduce((s, t) => s + t.count, 0);
    const completeProbes = traceLinesOf(scores, 'memory', isMemoryTraceLine).filter(
      (t) => t.blockComplete,
    ).length;
    expect(total).toBe(completeProbes);
  });

  it('is deterministic for a seed and changes with the analysis seed', () => {
    const again = analyzedFile(records, scores);
    expect(JSON.stringify(again)).toBe(JSON.stringify(data));
    const reseeded = analyzedFile(
      {
        ...records,
        manifest: { ...records.manifest, analysis: { ...records.manifest.analysis, seed: 7 } },
      },
      scores,
    );
    // point estimates do not depend on the seed; some interval does
    expect(reseeded.memory.map((p) => p.qualityScore.estimate)).toEqual(
      data.memory.map((p) => p.qualityScore.estimate),
    );
    const intervals = (d: ChartData) =>
      JSON.stringify([
        d.memory.map((p) => [p.qualityScore, p.factors]),
        d.history.map((h) => h.accuracy),
      ]);
    expect(intervals(reseeded)).not.toBe(intervals(data));
  });

  it('names runs as RUN-FOLDER.md does', () => {
    expect(defaultRunId('2026-09-01T08:00:00.000Z', 'abcdef0123456789')).toBe(
      '20260901T080000Z-abcdef01',
    );
  });
});

describe('analyzeRun with a load that has no complete world', () => {
  it('leaves EIMC uncomputed and the report says why, instead of inventing a value', async () => {
    const dir = await tempDir('analyze-missing');
    try {
      await buildFixtureRun(dir.path, {
        seeds: [11],
        infrastructureFailures: ['keeper.memory.w11.n16.probe.b0'],
      });
      const records = await readRunFolder(dir.path);
      const data = analyzedFile(records, scoreRun(records));
      const point = data.memory.find(
        (p) => p.systemId === 'keeper' && p.condition === 'notebook' && p.load === 16,
      );
      expect(point?.qualityScore).toMatchObject({
        estimate: null,
        intervalNote: 'undefined_estimate',
        worlds: 0,
      });
      expect(point?.blocks).toEqual({ planned: 1, complete: 0, incomplete: 1, missing: 0 });
      expect(data.eimc).toEqual([]);
      const { buildReportDocument } = await import('../document/report-document');
      const { renderMarkdown } = await import('../document/render-report');
      const markdown = renderMarkdown(
        buildReportDocument({ data: runChartData(data), figures: [], caseExamples: [] }),
      );
      expect(markdown).toContain(
        '| keeper | all | not computed | undefined: no complete world at load 16 |',
      );
    } finally {
      await dir.remove();
    }
  });
});

describe('analyzeRun over the attempt log', () => {
  it('reads the facts, resources, corpus and bytes stored of the chart data in one pass over the attempt records', async () => {
    const dir = await tempDir('analyze-passes');
    try {
      await buildFixtureRun(dir.path, { seeds: [11, 12] });
      const records = await readRunFolder(dir.path);
      const scores = scoreRun(records);
      const expected = analyzedFile(records, scores);
      // Each pass in file order starts an iterator over the lazy records (each record parsed and
      // validated again a pass); indexed reads are not passes and are not counted.
      let passes = 0;
      const attempts = new Proxy(records.attempts, {
        get(target, key) {
          if (key !== Symbol.iterator) return Reflect.get(target, key);
          passes++;
          return target[Symbol.iterator].bind(target);
        },
      });
      const data = analyzedFile({ ...records, attempts }, scores);
      expect(data).toEqual(expected);
      // One pass for the run facts, the resource rows, the corpus per load and the bytes stored
      // (four before issue 38); this run has no transcript replay or wording agreement to read.
      expect(passes).toBe(1);
    } finally {
      await dir.remove();
    }
  });
});
