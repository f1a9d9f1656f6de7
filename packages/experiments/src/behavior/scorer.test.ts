import type { ScorerRequest } from '@chi/experiment';
import { EQUAL_ALPHAS } from '@chi/scoring';
import type { PlannedBlock, PlannedRequest } from '@chi/spec';
import { generateBehavioralItems } from '@chi/worlds';
import { describe, expect, it } from 'vitest';
import { behavior } from '.';
import { behaviorScorer } from './scorer';

const WORLD = generateBehavioralItems({ seed: 3 });
const BLOCK: PlannedBlock = {
  blockId: 'behavior.w3',
  experiment: 'behavior',
  worldSeed: 3,
  load: null,
  requestIds: ['r1', 'r2'],
};

function idsOf(half: 1 | 2): string[] {
  return WORLD.items
    .filter((item) => item.half === half)
    .sort((a, b) => a.position - b.position)
    .map((item) => item.id);
}

function halfRequest(half: 1 | 2, reply: string | null, unusableReason: string | null) {
  return {
    request: { requestId: `r${half}`, task: 'behavior_half', half } as PlannedRequest,
    messages: [{ role: 'user' as const, content: 'ITEMS' }],
    reply,
    unusableReason,
  } satisfies ScorerRequest;
}

function scoreBlock(requests: readonly ScorerRequest[], asks = true) {
  return behaviorScorer.blocks.scoreBlock({
    world: WORLD,
    block: BLOCK,
    systemId: 's',
    blockComplete: true,
    requests,
    alphas: EQUAL_ALPHAS,
    askedIds: (request) => (asks ? idsOf(request.request.half as 1 | 2) : null),
  });
}

describe('behaviorScorer', () => {
  it("is the folder's scorer of the behavior blocks", () => {
    expect(behavior.scorer).toBe(behaviorScorer);
    expect(behaviorScorer.blocks.blockExperiments).toEqual(['behavior']);
  });

  it('scores every item once: a half without a usable reply gives missing answers naming why', () => {
    const answers = idsOf(1).map((id) => ({ id, answer: 'x' }));
    const {
      observations: [observation],
      traces,
    } = scoreBlock([
      halfRequest(1, JSON.stringify(answers), null),
      halfRequest(2, null, 'model_failure: empty reply'),
    ]);
    expect(observation).toMatchObject({
      kind: 'behavior-observation',
      systemId: 's',
      blockId: 'behavior.w3',
      worldSeed: 3,
      blockComplete: true,
      unusableRequests: [{ requestId: 'r2', reason: 'model_failure: empty reply' }],
    });
    expect(traces).toHaveLength(WORLD.items.length);
    const second = traces.filter((line) => line.trace.half === 2);
    expect(second.map((line) => line.trace.answer.status)).toEqual(idsOf(2).map(() => 'missing'));
    expect(second[0]?.trace.answer.detail).toBe('no usable reply: model_failure: empty reply');
    expect(
      traces
        .filter((line) => line.trace.half === 1)
        .some((l) => l.trace.answer.status === 'missing'),
    ).toBe(false);
  });

  it('treats a usable reply to a request without an ITEMS block as unusable, and an unplanned half as not planned', () => {
    const {
      observations: [observation],
      traces,
    } = scoreBlock([halfRequest(1, '[]', null)], false);
    expect(observation?.unusableRequests).toEqual([{ requestId: 'r1', reason: 'no ITEMS block' }]);
    expect(traces.find((line) => line.trace.half === 2)?.trace.answer.detail).toBe(
      'no usable reply: not planned',
    );
  });
});
