/**
 * The module path reads its outcomes through the attempt log's one fold that keeps line indexes
 * (`PlannedOutcomes`), like `scoreRun`: a reply is read back from the log when its world is
 * scored, not folded for the whole run into a map first. `@chi/pilot` comes through the
 * workspace test alias.
 */
import { join } from 'node:path';
import type { ScorerWorldInput } from '@chi/experiment';
import { goalPersistence } from '@chi/experiments';
import {
  createScriptedModel,
  defaultOfflineSettings,
  runPilot,
  scriptedSystemSpec,
} from '@chi/pilot';
import { readRunFolder, scoreRun } from '@chi/report/internal';
import { outcomesFromAttemptLog } from '@chi/run';
import type { AttemptRecord } from '@chi/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../packages/report/src/__fixtures__/temp-dir';
import { scoreModule } from '../../packages/report/src/experiment-scorers/module-scores';
import { outcomeSourceOf } from '../../packages/report/src/experiment-scorers/scorer-request';
import type { RunRecords } from '../../packages/report/src/run-folder/run-folder';
import { fixedClock } from './__fixtures__/fixed-clock';

const goalPersistenceScorer = goalPersistence.scorer;

let dir: { path: string; remove: () => Promise<void> };
let records: RunRecords;
beforeAll(async () => {
  dir = await tempDir('module-scores');
  const runDir = join(dir.path, 'run');
  const now = fixedClock('2026-09-01T00:00:00.000Z');
  const settings = defaultOfflineSettings({
    systems: [scriptedSystemSpec('perfect'), scriptedSystemSpec('abstainer')],
    replicates: 3,
    resamples: 50,
    templates: ['goal-persistence'],
  });
  const models = new Map(settings.systems.map((s) => [s.id, createScriptedModel(s.id, { now })]));
  const outcome = await runPilot({ settings, runDir, models, concurrency: 1, release: false, now });
  expect(outcome.exitCode).toBe(0);
  records = await readRunFolder(runDir);
}, 300_000);
afterAll(async () => dir.remove());

/** The attempt log with a counter of how often any record's `result` was read. */
function countedAttempts(attempts: readonly AttemptRecord[]) {
  const counter = { reads: 0 };
  const list = [...attempts].map((record) => {
    const { result, ...rest } = record;
    return Object.defineProperty({ ...rest }, 'result', {
      enumerable: true,
      get() {
        counter.reads += 1;
        return result;
      },
    }) as AttemptRecord;
  });
  return { list, counter };
}

describe('scoreModule', () => {
  it('reads each reply from the log when its world is scored, not the whole log up front', () => {
    const blocks = scoreRun(records).blocks;
    const { list, counter } = countedAttempts(records.attempts);
    const readsAtWorld: number[] = [];
    const counting = {
      ...goalPersistenceScorer,
      scoreWorld: (input: ScorerWorldInput<unknown>) => {
        readsAtWorld.push(counter.reads);
        return goalPersistenceScorer.scoreWorld?.(input as never) ?? { values: {}, traces: [] };
      },
    };
    const streamed = scoreModule({ ...records, attempts: list }, blocks, counting);
    // six scored worlds (3 worlds x 2 systems); results were read between them
    expect(readsAtWorld).toHaveLength(6);
    expect(readsAtWorld.at(-1) as number).toBeGreaterThan(readsAtWorld[0] as number);
    // and the scores are those of a fold that holds every outcome
    const held = scoreModule(
      records,
      blocks,
      goalPersistenceScorer,
      outcomeSourceOf(outcomesFromAttemptLog(records.attempts)),
    );
    expect(streamed?.observations).toEqual(held?.observations);
    expect(streamed?.observations.length).toBe(6);
  });
});
