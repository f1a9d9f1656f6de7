import type { ModuleObservation, ModuleScores } from '@chi/analysis';
import { analyzeModule } from '@chi/analysis';
import { defineExperimentScorer, type WorldScorer } from '@chi/experiment';
import type { RunManifest } from '@chi/spec';
import { describe, expect, it } from 'vitest';
import type { RunRecords } from '../run-folder/run-folder';
import { scoreRun } from '../scoring/score-run';
import { buildModuleRelease } from './module-release';
import { BUILT_IN_SCORERS } from './scorer-registry';

const SEEDS = [11, 22, 33, 44, 55, 66];

function manifestOf(systems: readonly string[]): RunManifest {
  return {
    worldSeeds: SEEDS,
    systems: systems.map((id) => ({ id, evidenceClass: 'scripted_baseline' })),
    analysis: { seed: 7, resamples: 400, level: 0.95, taus: [] },
    experiments: { memory: null, history: null, behavior: null },
  } as unknown as RunManifest;
}

const scorer = defineExperimentScorer<null>({
  specificationVersion: 'chi-scorer-v1',
  experimentId: 'x-test',
  title: 'test',
  parametersOf: () => null,
  columns: ['value'],
  estimands: [{ column: 'value', label: 'value' }],
  scoreWorld: () => ({ values: { value: null }, traces: [] }),
  notes: [],
}) as WorldScorer;

function observation(
  systemId: string,
  worldSeed: number,
  value: number | null,
  complete = true,
): ModuleObservation {
  return {
    kind: 'module-observation',
    experiment: 'x-test',
    systemId,
    worldSeed,
    blockComplete: complete,
    unusableRequests: [],
    values: { value },
  };
}

function scoresOf(observations: ModuleObservation[]): ModuleScores {
  return { scorer, observations, traces: new Map() };
}

describe('analyzeModule', () => {
  it('resamples the same worlds for every system: B = A + 0.25 on every world gives an interval shifted by 0.25', () => {
    const a = [0.1, 0.9, 0.3, 0.7, 0.2, 0.5];
    const scores = scoresOf(
      SEEDS.flatMap((seed, index) => [
        observation('A', seed, a[index] as number),
        observation('B', seed, (a[index] as number) + 0.25),
      ]),
    );
    const [estimateA, estimateB] = analyzeModule(manifestOf(['A', 'B']), scores);
    expect(estimateA?.estimate).toBeCloseTo(2.7 / 6, 12);
    expect(estimateB?.estimate).toBeCloseTo(2.7 / 6 + 0.25, 12);
    // independent draws per system would not shift both bounds by exactly the same amount
    expect((estimateB?.lower as number) - (estimateA?.lower as number)).toBeCloseTo(0.25, 12);
    expect((estimateB?.upper as number) - (estimateA?.upper as number)).toBeCloseTo(0.25, 12);
    expect(estimateA?.lower).toBeLessThan(estimateA?.upper as number);
  });

  it('leaves incomplete and undefined worlds out, and gives no interval below two worlds', () => {
    const scores = scoresOf([
      observation('A', 11, 1),
      observation('A', 22, 0, false),
      observation('A', 33, null),
    ]);
    const [estimate] = analyzeModule(manifestOf(['A']), scores);
    expect(estimate).toMatchObject({
      estimate: 1,
      lower: null,
      upper: null,
      worlds: 1,
      plannedWorlds: 6,
      intervalOmittedReason: 'fewer than two complete worlds with a defined value',
    });
  });
});

describe('buildModuleRelease', () => {
  const records = {
    manifest: manifestOf(['A']),
    plan: { requests: [], blocks: [] },
    attempts: [],
  } as unknown as RunRecords;

  it('adds nothing for a run that includes no module experiment (the default pilot)', () => {
    const release = buildModuleRelease(records, scoreRun(records, { scorers: BUILT_IN_SCORERS }));
    expect(release.files.size).toBe(0);
    expect(release.reportBlocks).toEqual([]);
  });

  it('refuses two scorers of one experiment', () => {
    expect(() => scoreRun(records, { scorers: [scorer, scorer] })).toThrow(
      'two scorers score experiment x-test',
    );
  });
});
