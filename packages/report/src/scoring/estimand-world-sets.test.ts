import { type EstimandWorldSets, estimandWorldSets } from '@chi/analysis/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixtureRun } from '../__fixtures__/fixture-run';
import { tempDir } from '../__fixtures__/temp-dir';
import { readRunFolder } from '../run-folder/run-folder';
import { scoreRun } from './score-run';

describe('estimandWorldSets', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let sets: EstimandWorldSets;
  beforeAll(async () => {
    dir = await tempDir('world-sets');
    await buildFixtureRun(dir.path, {
      seeds: [11, 12, 13, 14],
      infrastructureFailures: [
        'keeper.memory.w13.n8.probe.b0',
        'keeper.memory.w12.n16.probe.b0',
        'keeper.controls.w14.n8.blank.probe.b0',
        'keeper.history.w14.A.c3.probe',
        'keeper.behavior.w11.half1',
      ],
      timeouts: ['forgetful.behavior.w12.half2'],
    });
    sets = estimandWorldSets(scoreRun(await readRunFolder(dir.path)));
  });
  afterAll(async () => dir.remove());

  it('gives a curve the worlds complete at every load, and each cell its own complete worlds', () => {
    expect(sets.memoryCell('keeper', 'notebook', 8)).toEqual([11, 12, 14]);
    expect(sets.memoryCell('keeper', 'notebook', 16)).toEqual([11, 13, 14]);
    expect(sets.curve('keeper', 'notebook')).toEqual([11, 14]);
    expect(sets.curve('forgetful', 'notebook')).toEqual([11, 14]);
    // the controls are curves of one load, with their own blocks
    expect(sets.curve('keeper', 'blank')).toEqual([11, 12, 13]);
    expect(sets.withinWorld('keeper', 'notebook', 8)).toEqual([11, 14]);
  });

  it('gives history and behavior estimands the complete worlds where their value is defined', () => {
    expect(sets.historyComplete('forgetful')).toEqual([11, 12, 13]);
    expect(sets.historyCheckpoint('forgetful', 'B', 2)).toEqual([11, 12, 13]);
    // the forgetful system answers one B decision at checkpoint 2 invalidly in every world
    expect(sets.distances('forgetful', 2)).toEqual([]);
    expect(sets.distances('forgetful', 1)).toEqual([11, 12, 13]);
    expect(sets.continuity('keeper', 'A')).toEqual([11, 12, 13]);
    expect(sets.behaviorComplete('forgetful')).toEqual([12, 13, 14]);
    // world 12's second half timed out: no matched pair with both choices
    expect(sets.behavior('forgetful', 'A-frame-change')).toEqual([13, 14]);
    expect(sets.behavior('forgetful', 'R')).toEqual([12, 13, 14]);
  });
});
