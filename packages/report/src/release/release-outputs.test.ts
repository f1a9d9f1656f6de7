import type { RunManifest } from '@chi/spec';
import { describe, expect, it } from 'vitest';
import { BUILT_IN_SECTIONS } from '../document/report-sections';
import { BUILT_IN_RELEASE_OUTPUTS } from './release-output-registry';
import { experimentsIncluded } from './release-outputs';

/** A manifest with only the experiments' parameters (all the adapters read of it here). */
function manifestWith(experiments: Record<string, unknown>): RunManifest {
  return { experiments } as unknown as RunManifest;
}

describe('the release output adapters', () => {
  it('register each experiment with a report section once, under its ID', () => {
    const ids = BUILT_IN_RELEASE_OUTPUTS.map((output) => output.experimentId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(BUILT_IN_SECTIONS.map((section) => section.experimentId));
  });

  it('read which registered experiments a manifest includes: null or absent is left out', () => {
    const included = experimentsIncluded(
      manifestWith({ memory: null, history: { checkpoints: [0] }, behavior: {} }),
      BUILT_IN_RELEASE_OUTPUTS,
    );
    expect(included).toEqual({ memory: false, history: true, behavior: true });
    const mine = { experimentId: 'x-tally', scoreFiles: () => [], files: () => [] };
    expect(experimentsIncluded(manifestWith({ memory: null }), [mine])).toEqual({
      'x-tally': false,
    });
  });

  it('offer case candidates from complete blocks only', () => {
    const cases = BUILT_IN_RELEASE_OUTPUTS.flatMap((o) => (o.cases === undefined ? [] : [o]));
    expect(cases.map((o) => o.experimentId)).toEqual(['memory']);
    const line = {
      systemId: 'keeper',
      blockId: 'b1',
      worldSeed: 1,
      blockComplete: true,
      condition: 'notebook',
      load: 32,
      trace: { probeId: 'p1', stratum: 'r', verdict: 'pass' },
    };
    const candidate = cases[0]?.cases?.candidate(line);
    expect(candidate).toMatchObject({ systemId: 'keeper', load: 32, worldSeed: 1 });
    expect(cases[0]?.cases?.candidate({ ...line, blockComplete: false })).toBeNull();
  });
});
