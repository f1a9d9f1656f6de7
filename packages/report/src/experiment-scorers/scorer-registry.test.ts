import {
  isMemoryObservation,
  isMemoryTraceLine,
  observationsOf,
  traceLinesOf,
} from '@chi/analysis';
/**
 * One scorer interface, one registry, one pass: every built-in scorer is an `ExperimentScorer`
 * registered once and passes the SPI's contract suite, and writing a release folds the attempt
 * log once for all of them. (An added experiment's scorer fed through the same pass:
 * `added-experiment.test.ts` of `@chi/pilot`.)
 */
import { defineExperimentScorer } from '@chi/experiment';
import { experimentScorerProblems } from '@chi/experiment/test';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildFixtureRun } from '../__fixtures__/fixture-run';
import { tempDir } from '../__fixtures__/temp-dir';
import { buildDerivedRelease } from '../release/release-files';
import { PlannedOutcomes } from '../run-folder/planned-outcomes';
import { type RunRecords, readRunFolder } from '../run-folder/run-folder';
import { scoreRun } from '../scoring/score-run';
import { BUILT_IN_SCORERS, checkedScorers, scorerOfBlock } from './scorer-registry';

describe('BUILT_IN_SCORERS', () => {
  it('registers every built-in experiment once, in the order of the bootstrap estimands', () => {
    expect(BUILT_IN_SCORERS.map((scorer) => scorer.experimentId)).toEqual([
      'memory',
      'history',
      'behavior',
      'goal-persistence',
      'feedback-valence',
    ]);
    expect(checkedScorers(BUILT_IN_SCORERS)).toHaveLength(BUILT_IN_SCORERS.length);
    for (const kind of ['memory', 'controls', 'history', 'behavior'])
      expect(scorerOfBlock(kind)?.blocks?.blockExperiments).toContain(kind);
  });

  it.each(BUILT_IN_SCORERS.map((scorer) => [scorer.experimentId, scorer] as const))(
    '%s passes the experiment contract suite',
    (_id, scorer) => {
      expect(experimentScorerProblems(scorer)).toEqual([]);
    },
  );

  it('refuses a second scorer of an experiment or of a block kind, naming it', () => {
    const memory = BUILT_IN_SCORERS[0];
    if (memory === undefined) throw new Error('no memory scorer');
    expect(() => checkedScorers([...BUILT_IN_SCORERS, memory])).toThrow(
      'two scorers score experiment memory',
    );
    const rival = defineExperimentScorer({ ...memory, experimentId: 'x-rival' });
    expect(() => checkedScorers([...BUILT_IN_SCORERS, rival])).toThrow(
      'two scorers score the memory blocks',
    );
  });

  it('the contract suite names a scorer that scores nothing or has half a per-world capability', () => {
    const bare = defineExperimentScorer({
      specificationVersion: 'chi-scorer-v1',
      experimentId: 'x-bare',
      title: 'Bare',
      parametersOf: () => null,
      notes: ['nothing'],
    });
    expect(experimentScorerProblems(bare)).toEqual([
      'scores nothing: give scoreWorld (with columns and estimands) or blocks',
    ]);
    expect(experimentScorerProblems({ ...bare, columns: ['a'] })).toEqual([
      'per world: columns, estimands and scoreWorld go together',
    ]);
  });
});

describe('the one scoring pass', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let records: RunRecords;
  beforeAll(async () => {
    dir = await tempDir('scorer-registry');
    await buildFixtureRun(dir.path, { seeds: [11, 12], resamples: 20 });
    records = await readRunFolder(dir.path);
  });
  afterAll(async () => dir.remove());

  it('writing a release folds the attempt log once for every scorer', async () => {
    const fold = vi.spyOn(PlannedOutcomes, 'fold');
    try {
      await buildDerivedRelease(records);
      expect(fold).toHaveBeenCalledTimes(1);
    } finally {
      fold.mockRestore();
    }
  });

  it('keys every scorer by experiment ID, the pilot names reading the same lists', () => {
    const scores = scoreRun(records);
    expect([...scores.modules.keys()]).toEqual(BUILT_IN_SCORERS.map((s) => s.experimentId));
    expect(scores.modules.get('memory')?.observations).toEqual(
      observationsOf(scores, 'memory', isMemoryObservation),
    );
    expect(traceLinesOf(scores, 'memory', isMemoryTraceLine)).toBe(
      scores.modules.get('memory')?.traces,
    );
    expect(observationsOf(scores, 'memory', isMemoryObservation).length).toBeGreaterThan(0);
    // the opt-in environments are not in this run: no per-world scores
    expect(scores.modules.get('goal-persistence')?.worlds).toBeNull();
  });
});
