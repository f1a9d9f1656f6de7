import type { ScorerRequest } from '@chi/experiment';
import { EQUAL_ALPHAS } from '@chi/scoring';
import type { HistoryId, PlannedBlock, PlannedRequest } from '@chi/spec';
import { generateHistoryWorld } from '@chi/worlds';
import { describe, expect, it } from 'vitest';
import { history } from '.';
import { historyScorer } from './scorer';

const WORLD = generateHistoryWorld({ seed: 5 });
const BLOCK: PlannedBlock = {
  blockId: 'history.w5',
  experiment: 'history',
  worldSeed: 5,
  load: null,
  requestIds: [],
};

function probe(history: HistoryId, checkpoint: number, reply: string | null): ScorerRequest {
  return {
    request: {
      requestId: `${history}.c${checkpoint}`,
      task: 'history_probe',
      history,
      checkpoint,
    } as PlannedRequest,
    messages: [{ role: 'user', content: 'QUESTIONS' }],
    reply,
    unusableReason: reply === null ? 'failure model_empty' : null,
  };
}

/** A reply choosing option A (by its label) in every environment. */
const ALL_A = JSON.stringify(WORLD.environments.map((e) => ({ id: e.id, answer: e.labels.A })));

function scoreBlock(requests: readonly ScorerRequest[]) {
  return historyScorer.blocks.scoreBlock({
    world: WORLD,
    block: BLOCK,
    systemId: 's',
    blockComplete: true,
    requests,
    alphas: EQUAL_ALPHAS,
    askedIds: () => WORLD.environments.map((e) => e.id),
  });
}

describe('historyScorer', () => {
  it('is the registered scorer of the history blocks', () => {
    expect(history.scorer).toBe(historyScorer);
    expect(historyScorer.blocks.blockExperiments).toEqual(['history']);
  });

  it('reads each probe into decisions; a probe without a usable reply, or not planned, is invalid everywhere', () => {
    const {
      observations: [observation],
      traces,
    } = scoreBlock([probe('A', 0, ALL_A), probe('B', 0, null)]);
    expect(observation?.decisions.A[0]).toEqual(WORLD.environments.map(() => 'A'));
    expect(observation?.decisions.B[0]).toEqual(WORLD.environments.map(() => 'invalid'));
    expect(observation?.decisions.A2[4]).toEqual(WORLD.environments.map(() => 'invalid'));
    // only the planned probe that gave no usable reply is listed
    expect(observation?.unusableRequests).toEqual([
      { requestId: 'B.c0', reason: 'failure model_empty' },
    ]);
    // one trace per history x checkpoint x environment
    expect(traces).toHaveLength(3 * 5 * WORLD.environments.length);
    expect(traces.every((line) => line.worldSeed === 5 && line.systemId === 's')).toBe(true);
  });
});
