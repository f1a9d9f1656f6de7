import { describe, expect, it } from 'vitest';
import { buildManifest } from '../run-folder/manifest';
import { scriptedSystemSpec } from '../scripted/scripted-systems';
import { defaultOfflineSettings } from '../settings';
import { buildRunPlan, probeBatchCount, requestNonce, requestsPerSystem } from './plan';

const manifestFor = (overrides: Parameters<typeof defaultOfflineSettings>[0] = {}) =>
  buildManifest({
    settings: defaultOfflineSettings({
      systems: [scriptedSystemSpec('perfect'), scriptedSystemSpec('abstainer')],
      ...overrides,
    }),
    worldSeeds: [11, 22],
    prompts: [],
    generators: [],
    createdAt: new Date('2026-09-01T00:00:00.000Z'),
  });

describe('buildRunPlan', () => {
  it('registers the same requests for every system: memory, controls, history and behavior', () => {
    const plan = buildRunPlan(manifestFor());
    // per world: 4 loads x (encode + 1 probe) + controls (blank + oracle) + 3 histories x 9 + 2 halves = 39
    expect(Object.fromEntries(requestsPerSystem(plan))).toEqual({ perfect: 78, abstainer: 78 });
    expect(plan.blocks.map((block) => block.blockId)).toEqual([
      'memory.w11.n32',
      'memory.w11.n64',
      'memory.w11.n128',
      'memory.w11.n256',
      'controls.w11.n32',
      'history.w11',
      'behavior.w11',
      'memory.w22.n32',
      'memory.w22.n64',
      'memory.w22.n128',
      'memory.w22.n256',
      'controls.w22.n32',
      'history.w22',
      'behavior.w22',
    ]);
    const steps = plan.requests
      .filter((request) => request.systemId === 'perfect' && request.blockId === 'history.w11')
      .map((request) => request.step);
    expect(steps.slice(0, 9)).toEqual([
      'A.c0.probe',
      'A.c1.update',
      'A.c1.probe',
      'A.c2.update',
      'A.c2.probe',
      'A.c3.update',
      'A.c3.probe',
      'A.c4.update',
      'A.c4.probe',
    ]);
  });

  it('interleaves systems within a block and gives them identical nonces', () => {
    const plan = buildRunPlan(manifestFor());
    expect(plan.requests.slice(0, 4).map((request) => request.requestId)).toEqual([
      'perfect.memory.w11.n32.encode',
      'abstainer.memory.w11.n32.encode',
      'perfect.memory.w11.n32.probe.b0',
      'abstainer.memory.w11.n32.probe.b0',
    ]);
    expect(plan.requests[0]?.nonce).toBe(plan.requests[1]?.nonce);
    expect(plan.requests[0]?.nonce).toBe(requestNonce(11, 'memory.w11.n32', 'encode'));
  });

  it('chains history notebooks: each update needs the previous one, each probe its checkpoint', () => {
    const plan = buildRunPlan(manifestFor());
    const byStep = new Map(
      plan.requests
        .filter(
          (request) =>
            request.systemId === 'perfect' &&
            request.worldSeed === 11 &&
            (request.load === null || request.load === 32),
        )
        .map((request) => [request.step, request]),
    );
    expect(byStep.get('A.c0.probe')?.dependsOn).toEqual([]);
    expect(byStep.get('A.c1.update')?.dependsOn).toEqual([]);
    expect(byStep.get('A.c2.update')?.dependsOn).toEqual(['perfect.history.w11.A.c1.update']);
    expect(byStep.get('B.c4.probe')?.dependsOn).toEqual(['perfect.history.w11.B.c4.update']);
    expect(byStep.get('probe.b0')?.dependsOn).toEqual(['perfect.memory.w11.n32.encode']);
    expect(byStep.get('oracle.probe.b0')?.dependsOn).toEqual([]);
    // A2 repeats A exactly: a different registered request with A's nonce
    expect(byStep.get('A2.c1.update')?.nonce).toBe(byStep.get('A.c1.update')?.nonce);
    expect(byStep.get('A2.c1.update')?.requestId).not.toBe(byStep.get('A.c1.update')?.requestId);
    expect(byStep.get('B.c1.update')?.nonce).not.toBe(byStep.get('A.c1.update')?.nonce);
  });

  it('splits probes into batches when a batch size is set', () => {
    expect(probeBatchCount(48, null)).toBe(1);
    expect(probeBatchCount(48, 48)).toBe(1);
    expect(probeBatchCount(48, 20)).toBe(3);
    const plan = buildRunPlan(
      manifestFor({ batchSize: 20, loads: [32], history: false, behavior: false }),
    );
    expect(
      plan.requests
        .filter((request) => request.systemId === 'perfect' && request.worldSeed === 11)
        .map((request) => request.step),
    ).toEqual([
      'encode',
      'probe.b0',
      'probe.b1',
      'probe.b2',
      'blank.probe.b0',
      'blank.probe.b1',
      'blank.probe.b2',
      'oracle.probe.b0',
      'oracle.probe.b1',
      'oracle.probe.b2',
    ]);
  });

  it('rejects duplicate system IDs', () => {
    const manifest = manifestFor();
    expect(() =>
      buildRunPlan({ ...manifest, systems: [...manifest.systems, manifest.systems[0]!] }),
    ).toThrow(/system IDs must be unique, found perfect twice/);
  });
});
