import { describe, expect, it } from 'vitest';
import {
  armCalls,
  DIVERGENCE_ARMS,
  DIVERGENCE_CHECKPOINTS,
  divergenceArm,
  divergenceRequestsPerWorld,
} from './protocol';

describe('divergence protocol schedule', () => {
  it('probes every arm at every checkpoint', () => {
    for (const arm of DIVERGENCE_ARMS) {
      const probed = new Set(
        armCalls(arm)
          .filter((call) => call.role === 'probe')
          .map((call) => call.checkpoint),
      );
      expect([...probed]).toEqual(DIVERGENCE_CHECKPOINTS.map((c) => c.checkpoint));
    }
  });

  it('gives erasure and sham erasure the same calls (same prompts, same number of calls)', () => {
    const erase = armCalls(divergenceArm('A.erase'));
    const sham = armCalls(divergenceArm('A.sham'));
    expect(erase).toEqual(sham);
    expect(erase.filter((call) => call.role === 'operation')).toEqual([
      { checkpoint: 1, role: 'operation', event: { kind: 'maintenance' }, condition: null },
    ]);
    // One call more than the main arm: the operation call.
    expect(erase.length).toBe(armCalls(divergenceArm('A')).length + 1);
  });

  it('washout is the same common experience for every arm', () => {
    const washout = (id: string) =>
      armCalls(divergenceArm(id)).filter((call) => call.event?.kind === 'washout');
    for (const arm of DIVERGENCE_ARMS) expect(washout(arm.id)).toEqual(washout('A'));
    expect(washout('A').map((call) => call.checkpoint)).toEqual([2, 3, 4]);
  });

  it('hysteresis arms reach the same condition through different paths', () => {
    const conditions = (id: string) =>
      armCalls(divergenceArm(id))
        .filter((call) => call.role === 'probe' && call.checkpoint === 1)
        .map((call) => call.condition);
    expect(conditions('AB')).toEqual(['history:A', 'history:both']);
    expect(conditions('BA')).toEqual(['history:B', 'history:both']);
  });

  it('the plasticity intervention and its control differ only at the plasticity checkpoint', () => {
    const correct = armCalls(divergenceArm('A.correct'));
    const matched = armCalls(divergenceArm('A.matched'));
    const differing = correct
      .map((call, index) => [call, matched[index]] as const)
      .filter(([a, b]) => JSON.stringify(a) !== JSON.stringify(b))
      .map(([a]) => a.checkpoint);
    expect(new Set(differing)).toEqual(new Set([5]));
  });

  it('counts 13 calls per main arm and 287 requests per world and system', () => {
    // 7 probes + 6 updates (exposure, 3 washout, 2 later).
    expect(armCalls(divergenceArm('A')).length).toBe(13);
    expect(DIVERGENCE_ARMS.length).toBe(21);
    // Beyond 13 per arm: one operation call for each of the 4 erasure and 2 sham arms, and one
    // more exposure update and probe for each of AB, BA, AB2 and BA2.
    const extra = DIVERGENCE_ARMS.reduce((sum, arm) => sum + armCalls(arm).length - 13, 0);
    expect(extra).toBe(6 + 8);
    expect(divergenceRequestsPerWorld()).toBe(21 * 13 + 14);
  });
});
