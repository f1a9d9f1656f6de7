import { describe, expect, it } from 'vitest';
import { DEFAULT_PROBES_PER_STRATUM, minimumMemoryLoad, PILOT_LOADS, V01_LOADS } from './presets';

describe('presets', () => {
  it('hold the pilot grid and the v0.1 panel', () => {
    expect(PILOT_LOADS).toEqual([32, 64, 128, 256]);
    expect(V01_LOADS).toEqual([100, 300, 1000, 3000, 10000]);
    expect(DEFAULT_PROBES_PER_STRATUM).toBe(8);
  });

  it('put the smallest valid load at four times the probes per stratum', () => {
    expect(minimumMemoryLoad()).toBe(32);
    expect(minimumMemoryLoad(1)).toBe(4);
    expect(minimumMemoryLoad(25)).toBe(100);
    expect(Math.min(...PILOT_LOADS, ...V01_LOADS)).toBeGreaterThanOrEqual(minimumMemoryLoad());
  });
});
