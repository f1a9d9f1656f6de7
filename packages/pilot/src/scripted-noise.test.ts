import { describe, expect, it } from 'vitest';
import { createScriptedNoise } from './scripted-noise';

describe('createScriptedNoise', () => {
  it('is a pure function of seed, nonce and label', () => {
    const a = createScriptedNoise(7, '0123456789abcdef');
    const b = createScriptedNoise(7, '0123456789abcdef');
    expect(a.uniform('x')).toBe(b.uniform('x'));
    expect(a.hex8('v')).toMatch(/^[0-9a-f]{8}$/);
    expect(a.uniform('x')).not.toBe(a.uniform('y'));
    expect(createScriptedNoise(8, '0123456789abcdef').uniform('x')).not.toBe(a.uniform('x'));
    expect(createScriptedNoise(7, 'fedcba9876543210').uniform('x')).not.toBe(a.uniform('x'));
  });

  it('draws uniformly enough that chance(p) hits about p of the time', () => {
    const noise = createScriptedNoise(1, 'aaaaaaaaaaaaaaaa');
    let hits = 0;
    for (let k = 0; k < 4000; k++) if (noise.chance(`k${k}`, 0.25)) hits += 1;
    expect(hits / 4000).toBeGreaterThan(0.22);
    expect(hits / 4000).toBeLessThan(0.28);
    expect(noise.chance('z', 0)).toBe(false);
  });
});
