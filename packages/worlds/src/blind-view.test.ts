import { parseWith } from '@chi/spec';
import { BlindMemoryWorldSchema } from '@chi/spec/internal';
import { describe, expect, it } from 'vitest';
import { blindView } from './blind-view';
import { generateMemoryWorld } from './memory-world';

describe('blindView', () => {
  const world = generateMemoryWorld({ seed: 2026, load: 32 });
  const view = blindView(world);

  it('keeps exactly the load, the records and the blind probes', () => {
    expect(() => parseWith(BlindMemoryWorldSchema, view, 'blind memory world')).not.toThrow();
    expect(Object.keys(view)).toEqual(['kind', 'load', 'records', 'probes']);
    expect(view.records).toEqual(world.records);
    expect(view.probes).toEqual(world.probes);
  });

  it('strips the seed, roles, counts and the answer key', () => {
    const text = JSON.stringify(view);
    for (const hidden of [
      'answerKey',
      'recordRoles',
      'stratum',
      'expectedValue',
      'distractor',
      'counts',
      'seed',
      'generator',
    ]) {
      expect(text).not.toContain(hidden);
    }
  });

  it('shares no objects with the world, so editing the view cannot leak into the key', () => {
    expect(view.records[0]).not.toBe(world.records[0]);
    expect(view.probes[0]).not.toBe(world.probes[0]);
    (view.records[0] as { value: string }).value = 'ffffffff';
    expect(world.records[0]?.value).not.toBe('ffffffff');
  });
});
