import {
  INSTANCE_HEADER,
  instanceFromHeaders,
  instanceHeaders,
  SESSION_HEADER,
} from '@chi/openrouter';
import { describe, expect, it } from 'vitest';
import { buildRunPlan } from '../plan/plan';
import { buildManifest } from '../run-folder/manifest';
import { defaultOfflineSettings } from '../settings';
import { instanceScope, memoryPolicyOf, requestInstance } from './instance-identity';
import { memoryReferenceSpec } from './reference-systems';

const SHA = 'ab'.repeat(32);

function planOf() {
  const settings = defaultOfflineSettings({
    systems: [memoryReferenceSpec('window')],
    replicates: 1,
    loads: [32, 64],
  });
  const manifest = buildManifest({
    settings,
    worldSeeds: [7],
    prompts: [],
    generators: [],
    createdAt: new Date('2026-12-03T00:00:00Z'),
  });
  return buildRunPlan(manifest);
}

describe('memory instances under the system policy', () => {
  const plan = planOf();
  const instanceOf = (requestId: string) => {
    const request = plan.requests.find((candidate) => candidate.requestId === requestId);
    if (request === undefined) throw new Error(`no ${requestId}`);
    return requestInstance(request, SHA);
  };
  const idsOf = (prefix: string) =>
    new Set(
      plan.requests
        .filter((request) => request.requestId.startsWith(prefix))
        .map((request) => requestInstance(request, SHA).instanceId),
    );

  it("shares one instance between a memory block's encode and its probes, and names the session", () => {
    const encode = instanceOf('window.memory.w7.n32.encode');
    expect(encode).toEqual({
      instanceId: `chi-${SHA.slice(0, 12)}/window/memory.w7.n32`,
      sessionId: 'window.memory.w7.n32.encode',
    });
    expect(idsOf('window.memory.w7.n32.')).toEqual(new Set([encode.instanceId]));
    // another load is another memory (a reset)
    expect(instanceOf('window.memory.w7.n64.encode').instanceId).not.toBe(encode.instanceId);
  });

  it('gives each control its own never-written instance and each history arm one across checkpoints', () => {
    const blank = idsOf('window.controls.w7.n32.blank.');
    const oracle = idsOf('window.controls.w7.n32.oracle.');
    expect(blank.size).toBe(1);
    expect(oracle.size).toBe(1);
    expect([...blank][0]).not.toBe([...oracle][0]);
    expect([...blank][0]).not.toBe(instanceOf('window.memory.w7.n32.encode').instanceId);
    for (const arm of ['A', 'B', 'A2']) {
      const ids = idsOf(`window.history.w7.${arm}.`);
      expect(ids.size).toBe(1);
    }
    expect(idsOf('window.history.w7.').size).toBe(3);
  });

  it('gives every behavioral half a fresh instance', () => {
    const halves = plan.requests.filter((request) => request.experiment === 'behavior');
    expect(halves.length).toBeGreaterThan(1);
    const ids = new Set(halves.map((request) => instanceScope(request)));
    expect(ids.size).toBe(halves.length);
  });

  it('defaults to the notebook policy when the manifest says nothing', () => {
    expect(memoryPolicyOf({})).toBe('notebook');
    expect(memoryPolicyOf({ memory: 'system' })).toBe('system');
  });
});

describe('instance headers', () => {
  it('carry the instance and session as X-Chi-Instance / X-Chi-Session and read back', () => {
    const instance = {
      instanceId: 'chi-abc/window/memory.w7.n32',
      sessionId: 'window.memory.w7.n32.encode',
    };
    const headers = instanceHeaders(instance);
    expect(headers).toEqual({
      [INSTANCE_HEADER]: instance.instanceId,
      [SESSION_HEADER]: instance.sessionId,
    });
    expect(INSTANCE_HEADER).toBe('x-chi-instance');
    expect(instanceFromHeaders(headers)).toEqual(instance);
    expect(instanceHeaders(undefined)).toEqual({});
    expect(instanceFromHeaders({})).toBeUndefined();
  });

  it('refuse an ID no HTTP header can carry, naming the field', () => {
    expect(() => instanceHeaders({ instanceId: 'a b', sessionId: 's' })).toThrow(
      /instance\.instanceId/,
    );
    expect(() => instanceHeaders({ instanceId: 'a', sessionId: 'line\nbreak' })).toThrow(
      /instance\.sessionId/,
    );
  });
});

describe('chi pilot --memory', () => {
  it('marks every system as keeping its own memory, and refuses another value naming the flag', async () => {
    const { parseCli: parseCliArgs } = await import('../cli/cli-args');
    const { settingsFor } = await import('../cli/cli-main');
    const command = parseCliArgs(['pilot', '--memory', 'system', '--systems', 'capacity-keeper']);
    const settings = settingsFor(command as Parameters<typeof settingsFor>[0]);
    expect(settings.systems.map((system) => system.memory)).toEqual(['system']);
    const plain = parseCliArgs(['pilot', '--systems', 'capacity-keeper,window']);
    const defaults = settingsFor(plain as Parameters<typeof settingsFor>[0]);
    // no flag: the notebook system's entry keeps its bytes; the reference is always system
    expect(defaults.systems.map((system) => system.memory)).toEqual([undefined, 'system']);
    expect(() => parseCliArgs(['pilot', '--memory', 'shared'])).toThrow(
      /--memory: expected notebook or system/,
    );
  });
});
