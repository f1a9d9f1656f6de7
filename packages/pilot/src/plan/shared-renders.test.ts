import type { PlannedRequest } from '@chi/spec';
import { describe, expect, it } from 'vitest';
import { prepareRun } from '../run-folder/run-create';
import { scriptedSystemSpec } from '../scripted/scripted-systems';
import { defaultOfflineSettings } from '../settings';
import { renderPlannedRequest } from './render-planned';

const SYSTEMS = ['perfect', 'capacity-keeper', 'abstainer'];
const prepared = prepareRun({
  settings: defaultOfflineSettings({
    systems: SYSTEMS.map((name) => scriptedSystemSpec(name)),
    replicates: 1,
    loads: [32],
    history: false,
    behavior: false,
  }),
  now: () => new Date('2026-09-01T00:00:00.000Z'),
});
const { manifest } = prepared.frozen;

/** The requests of the first memory block with `step` and `condition`, one per system. */
function perSystem(step: string, condition: string): PlannedRequest[] {
  const found = prepared.plan.requests.filter(
    (request) => request.step === step && request.condition === condition,
  );
  const block = found[0]?.blockId;
  return found.filter((request) => request.blockId === block);
}

const render = (request: PlannedRequest) =>
  renderPlannedRequest({
    request,
    manifest,
    worlds: prepared.worlds,
    prompts: prepared.prompts,
    notes: (systemId) => `notes of ${systemId}`,
  });

describe('prompts no system state enters are rendered once for every system of a block', () => {
  it.each([
    ['encode', 'notebook'],
    ['oracle.probe.b0', 'oracle'],
    ['blank.probe.b0', 'blank'],
  ])('%s (%s): one frozen message list, the same for each system', (step, condition) => {
    const requests = perSystem(step, condition);
    expect(requests.map((request) => request.systemId)).toEqual(SYSTEMS);
    const rendered = requests.map(render);
    const first = rendered[0]?.messages;
    expect(Object.isFrozen(first)).toBe(true);
    for (const other of rendered) expect(other.messages).toBe(first);
  });

  it('a probe of a system’s own notes is rendered per system', () => {
    const rendered = perSystem('probe.b0', 'notebook').map(render);
    expect(rendered[0]?.messages).not.toBe(rendered[1]?.messages);
    expect(rendered[1]?.messages[1]?.content).toContain('notes of capacity-keeper');
  });
});
