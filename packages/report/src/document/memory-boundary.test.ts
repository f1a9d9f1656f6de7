import type { RunFacts } from '@chi/analysis';
import type { MemoryPoint } from '@chi/analysis/internal';
import { systemLabel } from '@chi/analysis/internal';
import { describe, expect, it } from 'vitest';
import {
  blankControlLeaks,
  blankControlLeakText,
  memorySystemMethodText,
  systemBoundaryText,
} from './memory-boundary';

const ratio = (numerator: number, denominator = 8) => ({
  numerator,
  denominator,
  rate: numerator / denominator,
});

const blank = (systemId: string, passing: number): MemoryPoint =>
  ({
    systemId,
    condition: 'blank',
    load: 32,
    strata: {
      r: ratio(passing),
      t: ratio(2),
      s: ratio(0),
      u: ratio(0),
      i: ratio(0),
      f: ratio(0),
    },
  }) as unknown as MemoryPoint;

const run = (memory: Record<string, 'system' | undefined>): RunFacts =>
  ({
    systems: Object.entries(memory).map(([id, policy]) => ({
      id,
      evidenceClass: 'scripted_baseline',
      ...(policy === undefined ? {} : { memory: policy }),
    })),
  }) as unknown as RunFacts;

describe('the report on who held the memory', () => {
  it('flags a blank-memory control that passed a probe that expects a recorded value', () => {
    // t passes by abstention where the answer is "unknown": never a leak
    const points = [blank('window', 0), blank('leaky-store', 7)];
    expect(blankControlLeaks(points)).toEqual([
      { systemId: 'leaky-store', load: 32, passing: 7, probes: 32 },
    ]);
    const text = blankControlLeakText({
      experiments: { memory: { memory: points, eimc: [], taxonomy: [] } },
      run: run({ window: 'system', 'leaky-store': 'system' }),
    });
    expect(text).toMatch(/^STATE LEAK/);
    expect(text).toContain('leaky-store (memory policy system) at N = 32: 7 of 32');
    expect(
      blankControlLeakText({
        experiments: { memory: { memory: [blank('window', 0)], eimc: [], taxonomy: [] } },
        run: run({ window: 'system' }),
      }),
    ).toBeNull();
  });

  it('states the boundary and labels every system with its policy once one held its own memory', () => {
    const mixed = run({ window: 'system', keeper: undefined });
    expect(systemBoundaryText(mixed)).toMatch(/System boundary: window held its own memory/);
    expect(systemBoundaryText(mixed)).toContain('not the same quantity');
    expect(systemLabel(mixed, 'window')).toBe('window [memory: system]');
    expect(systemLabel(mixed, 'keeper')).toBe('keeper [memory: notebook]');
    // a notebook-only run: nothing new is said and labels keep their bytes
    const notebookOnly = run({ keeper: undefined });
    expect(systemBoundaryText(notebookOnly)).toBeNull();
    expect(systemLabel(notebookOnly, 'keeper')).toBe('keeper');
  });
});

describe('bytes stored and the method sentence under each memory policy', () => {
  const facts = (systems: Record<string, object>) =>
    ({
      notebookCapBytes: 6000,
      systems: Object.entries(systems).map(([id, extra]) => ({
        id,
        evidenceClass: 'scripted_baseline',
        ...extra,
      })),
    }) as unknown as RunFacts;

  it('lists the recorded bytes stored, says when none were recorded, and not reported by a system without an export', () => {
    const text = systemBoundaryText(
      facts({
        window: { memory: 'system', instanceControl: 'chi-instance-control-v1' },
        acme: { memory: 'system' },
      }),
    );
    // never "reported by" a run that recorded nothing
    expect(text).not.toContain('reported by window');
    expect(text).toContain(
      'Bytes stored: none recorded for window (it declares the instance-control extension, but no instance of it ended with a session that reached it)',
    );
    const spread = (mean: number, min: number, max: number) => ({ mean, min, max });
    const recorded = systemBoundaryText(
      facts({
        window: { memory: 'system', instanceControl: 'chi-instance-control-v1' },
        acme: { memory: 'system' },
      }),
      [
        {
          systemId: 'window',
          experiment: 'controls',
          load: 32,
          condition: 'blank',
          instances: 1,
          bytesStored: spread(0, 0, 0),
        },
        {
          systemId: 'window',
          experiment: 'memory',
          load: 64,
          condition: 'notebook',
          instances: 2,
          bytesStored: spread(11200, 11000, 11400),
        },
      ],
    );
    expect(recorded).toContain(
      "Bytes stored by window (its own count, from its instance-control export at the end of each instance's trajectory): controls N = 32 (blank): 0 B in 1 instance; memory N = 64 (notebook): mean 11200 B (11000 B–11400 B) over 2 instances.",
    );
    expect(recorded).toContain('not reported by the system for acme');
    expect(text).toContain(
      'Bytes stored: not reported by the system for acme (no instance-control extension declared',
    );
    expect(text).toContain('Tokens replayed by the runner: none');
  });

  it('describes the notebook only for notebook systems, and the notebook default word for word', () => {
    const notebookOnly = memorySystemMethodText(facts({ kimi: {} }));
    expect(notebookOnly).toBe(
      "The evaluated memory system is the named model plus a common 6000-byte external notebook; this is not the provider's native memory, CPLOM production architecture, or context-window size.",
    );
    const held = memorySystemMethodText(facts({ acme: { memory: 'system' } }));
    expect(held).toContain('acme is the named system with the memory it keeps itself');
    expect(held).not.toContain('notebook;');
    const mixed = memorySystemMethodText(facts({ acme: { memory: 'system' }, kimi: {} }));
    expect(mixed).toContain(
      'For kimi it is the named model plus a common 6000-byte external notebook',
    );
  });
});
