import type { ScorerRequest } from '@chi/experiment';
import { EQUAL_ALPHAS } from '@chi/scoring';
import type { MemoryWorld, PlannedBlock, PlannedRequest } from '@chi/spec';
import { generateMemoryWorld } from '@chi/worlds';
import { describe, expect, it } from 'vitest';
import { memory } from '.';
import { memoryScorer } from './scorer';

const WORLD: MemoryWorld = generateMemoryWorld({ seed: 7, load: 32 });
const BLOCK: PlannedBlock = {
  blockId: 'memory.w7.n32',
  experiment: 'memory',
  worldSeed: 7,
  load: 32,
  requestIds: [],
};
const IDS = WORLD.answerKey.map((entry) => entry.id);
const HALF = Math.ceil(IDS.length / 2);
const BATCHES = [IDS.slice(0, HALF), IDS.slice(HALF)];

function probe(
  batch: number,
  condition: 'notebook' | 'blank',
  reply: string | null,
): ScorerRequest {
  return {
    request: {
      requestId: `${condition}.b${batch}`,
      task: 'memory_probe',
      condition,
      batch,
    } as PlannedRequest,
    messages: [{ role: 'user', content: 'QUESTIONS' }],
    reply,
    unusableReason: reply === null ? 'not sent' : null,
  };
}

/** A reply giving the answer key's value and source for each asked ID. */
function keyReply(ids: readonly string[]): string {
  const key = new Map(WORLD.answerKey.map((entry) => [entry.id, entry]));
  return JSON.stringify(
    ids.map((id) => ({
      id,
      value: key.get(id)?.expectedValue ?? null,
      source: key.get(id)?.expectedValue === null ? null : (key.get(id)?.expectedSource ?? null),
    })),
  );
}

function scoreBlock(requests: readonly ScorerRequest[]) {
  return memoryScorer.blocks.scoreBlock({
    world: memoryScorer.blocks.world(
      { memoryWorlds: new Map([['w7-n32', WORLD]]) } as never,
      BLOCK,
    ),
    block: BLOCK,
    systemId: 's',
    blockComplete: true,
    requests,
    alphas: EQUAL_ALPHAS,
    askedIds: (request) => BATCHES[request.request.batch ?? 0] ?? null,
  });
}

describe('memoryScorer', () => {
  it('scores memory and controls blocks', () => {
    expect(memory.scorer).toBe(memoryScorer);
    expect(memoryScorer.blocks.blockExperiments).toEqual(['memory', 'controls']);
  });

  it('merges the batches of a condition, one observation per condition; a batch without a reply is missing', () => {
    const { observations, traces } = scoreBlock([
      probe(0, 'notebook', keyReply(BATCHES[0] ?? [])),
      probe(1, 'notebook', null),
      probe(0, 'blank', keyReply(BATCHES[0] ?? [])),
      probe(1, 'blank', keyReply(BATCHES[1] ?? [])),
    ]);
    expect(observations.map((o) => [o.condition, o.load])).toEqual([
      ['notebook', 32],
      ['blank', 32],
    ]);
    expect(observations[0]?.unusableRequests).toEqual([
      { requestId: 'notebook.b1', reason: 'not sent' },
    ]);
    expect(observations[1]?.unusableRequests).toEqual([]);
    // one trace per answer-key entry and condition; the unsent batch's probes are missing
    expect(traces).toHaveLength(2 * IDS.length);
    const missing = traces.filter(
      (line) => line.condition === 'notebook' && line.trace.answer.status === 'missing',
    );
    expect(missing.map((line) => line.trace.probeId).sort()).toEqual(
      [...(BATCHES[1] ?? [])].sort(),
    );
  });
});
