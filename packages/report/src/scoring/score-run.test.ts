import {
  analyzeProfiles,
  isBehaviorObservation,
  isBehaviorTraceLine,
  isHistoryObservation,
  isHistoryTraceLine,
  isMemoryObservation,
  isMemoryTraceLine,
  memoryExtrasOf,
  observationsOf,
  type RunScores,
  traceLinesOf,
} from '@chi/analysis';
import { heldAsArrays } from '@chi/analysis/test';
import { EQUAL_ALPHAS } from '@chi/scoring';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixtureRun } from '../__fixtures__/fixture-run';
import { tempDir } from '../__fixtures__/temp-dir';
import { type RunRecords, readRunFolder } from '../run-folder/run-folder';
import { analyzeRun } from './analyze-run';
import { scoreRun } from './score-run';

describe('scoreRun', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let records: RunRecords;
  let scores: RunScores;
  beforeAll(async () => {
    dir = await tempDir('score');
    await buildFixtureRun(dir.path, {
      seeds: [11, 12],
      infrastructureFailures: ['forgetful.memory.w12.n16.probe.b0'],
      timeouts: ['keeper.memory.w11.n16.probe.b0'],
    });
    records = await readRunFolder(dir.path);
    scores = scoreRun(records);
  });
  afterAll(async () => dir.remove());

  it("marks a block with an infrastructure failure incomplete, with the runner's reason lines", () => {
    const row = scores.blocks.find((b) => b.blockId === 'memory.w12.n16');
    expect(row).toMatchObject({
      status: 'incomplete',
      reasons: ['1 x infrastructure failure: http_retryable'],
    });
    expect(scores.blocks.filter((b) => b.status !== 'complete').map((b) => b.blockId)).toEqual([
      'memory.w12.n16',
    ]);
  });

  it('keeps a timeout in its complete block, scoring every probe it asked as missing', () => {
    const observation = observationsOf(scores, 'memory', isMemoryObservation).find(
      (o) => o.systemId === 'keeper' && o.blockId === 'memory.w11.n16',
    );
    expect(observation?.blockComplete).toBe(true);
    expect(observation?.unusableRequests).toEqual([
      { requestId: 'keeper.memory.w11.n16.probe.b0', reason: 'failure timeout: timeout (fixture)' },
    ]);
    expect(observation?.score.qualityScore).toBe(0);
    const traces = traceLinesOf(scores, 'memory', isMemoryTraceLine).filter(
      (t) => t.systemId === 'keeper' && t.worldSeed === 11 && t.load === 16,
    );
    expect(traces).toHaveLength(12);
    expect(new Set(traces.map((t) => t.trace.reason))).toEqual(new Set(['missing_answer']));
  });

  it('scores the answer-key system perfectly and the blank control as abstaining on everything', () => {
    const keeper = observationsOf(scores, 'memory', isMemoryObservation).find(
      (o) => o.systemId === 'keeper' && o.blockId === 'memory.w11.n8' && o.condition === 'notebook',
    );
    expect(keeper?.score.qualityScore).toBe(1);
    const blank = observationsOf(scores, 'memory', isMemoryObservation).find(
      (o) => o.systemId === 'keeper' && o.blockId === 'controls.w11.n8' && o.condition === 'blank',
    );
    expect(blank?.score.strata.r).toEqual({ numerator: 0, denominator: 2, rate: 0 });
    expect(blank?.score.lures.correctAbstention).toBe(2);
    expect(memoryExtrasOf(scores).probeNotebooks.get('keeper|controls.w11.n8|blank')).toBe('');
    expect(memoryExtrasOf(scores).probeNotebooks.get('keeper|controls.w11.n8|oracle')).toBeNull();
  });

  it('scores one observation per system and block, with one trace per probe', () => {
    expect(observationsOf(scores, 'memory', isMemoryObservation)).toHaveLength(
      2 /* systems */ * 2 /* seeds */ * (2 /* loads */ + 2) /* controls */,
    );
    expect(observationsOf(scores, 'history', isHistoryObservation)).toHaveLength(4);
    expect(observationsOf(scores, 'behavior', isBehaviorObservation)).toHaveLength(4);
    expect(traceLinesOf(scores, 'memory', isMemoryTraceLine)).toHaveLength(
      observationsOf(scores, 'memory', isMemoryObservation).length * 12,
    );
    expect(traceLinesOf(scores, 'history', isHistoryTraceLine)).toHaveLength(4 * 3 * 5 * 4);
    expect(traceLinesOf(scores, 'behavior', isBehaviorTraceLine)).toHaveLength(4 * 24);
  });

  it('keys the scores by experiment only, and routes every trace line by its experiment ID', () => {
    expect(Object.keys(scores).sort()).toEqual(['blocks', 'modules']);
    const routed = new Map<string, number>();
    const sunk = scoreRun(records, {
      traces: { trace: (id) => routed.set(id, (routed.get(id) ?? 0) + 1) },
    });
    for (const [id, experiment] of scores.modules) {
      expect(routed.get(id) ?? 0).toBe(experiment.traces.length);
      expect(sunk.modules.get(id)?.traces).toEqual([]);
    }
    // memory's taxonomy was counted through its scores extension as the lines went to the sink
    const counted = memoryExtrasOf(sunk).taxonomy?.rows(['keeper', 'forgetful']);
    expect(counted).toEqual(memoryExtrasOf(scores).taxonomy?.rows(['keeper', 'forgetful']));
    expect(counted?.length).toBeGreaterThan(0);
    expect(scores.modules.get('history')?.extras).toEqual({});
  });

  it('gathers extras only through the extensions it is given (scoreRun names no experiment)', () => {
    const bare = scoreRun(records, { extensions: new Map() });
    expect(bare.modules.get('memory')?.extras).toEqual({});
    expect(memoryExtrasOf(bare).taxonomy).toBeUndefined();
    expect(memoryExtrasOf(bare).probeNotebooks.get('keeper|controls.w11.n8|blank')).toBeUndefined();
    expect(observationsOf(bare, 'memory', isMemoryObservation)).toEqual(
      observationsOf(scores, 'memory', isMemoryObservation),
    );
  });

  it('reads an invalid history answer as an invalid decision and nulls the distances it touches', () => {
    const forgetful = observationsOf(scores, 'history', isHistoryObservation).find(
      (o) => o.systemId === 'forgetful' && o.worldSeed === 11,
    );
    expect(forgetful?.decisions.B[2]?.[0]).toBe('invalid');
    const checkpoint2 = forgetful?.score.checkpoints[2];
    expect(checkpoint2?.divergence.differentHistories.value).toBeNull();
    expect(checkpoint2?.divergence.value).toBeNull();
  });

  it('is pure: scoring the same records twice gives equal results', () => {
    expect(JSON.stringify(observationsOf(scoreRun(records), 'memory', isMemoryObservation))).toBe(
      JSON.stringify(observationsOf(scores, 'memory', isMemoryObservation)),
    );
  });

  it('holds the observations packed: each read gives new objects, equal to the last read', () => {
    const [first, second] = [
      observationsOf(scores, 'memory', isMemoryObservation),
      observationsOf(scores, 'memory', isMemoryObservation),
    ];
    expect(second).not.toBe(first);
    expect(second[0]).not.toBe(first[0]);
    expect(second).toStrictEqual(first);
    expect(observationsOf(scores, 'history', isHistoryObservation)).toStrictEqual(
      observationsOf(scores, 'history', isHistoryObservation),
    );
    // held as arrays (the object path), a list is the same array at every read
    const held = heldAsArrays(scores);
    expect(observationsOf(held, 'memory', isMemoryObservation)).toBe(
      observationsOf(held, 'memory', isMemoryObservation),
    );
    expect(observationsOf(held, 'behavior', isBehaviorObservation)).toStrictEqual(
      observationsOf(scores, 'behavior', isBehaviorObservation),
    );
  });
});

describe('scoreRun packed against the object path', () => {
  it('gives exactly the analysis and profiles of the same lists held as arrays', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.subarray([11, 12, 13, 14], { minLength: 1 }),
        fc.subarray(
          [
            'forgetful.memory.w12.n16.probe.b0',
            'keeper.history.w11.A.c2.probe',
            'keeper.behavior.w13.half1',
          ],
          { minLength: 0 },
        ),
        async (seeds, failures) => {
          const dir = await tempDir('score-packed');
          try {
            await buildFixtureRun(dir.path, { seeds, infrastructureFailures: failures });
            const records = await readRunFolder(dir.path);
            const packed = scoreRun(records);
            // the object path: every list materialised once and held for the whole analysis
            const objects: RunScores = heldAsArrays(packed);
            expect(analyzeRun(records, packed)).toStrictEqual(analyzeRun(records, objects));
            const profiles = (scores: RunScores) =>
              analyzeProfiles(records.manifest, null, scores, { alphas: EQUAL_ALPHAS });
            expect(profiles(packed)).toStrictEqual(profiles(objects));
          } finally {
            await dir.remove();
          }
        },
      ),
      { numRuns: 4 },
    );
  });
});
