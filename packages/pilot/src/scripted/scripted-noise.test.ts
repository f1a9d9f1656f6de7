import { describe, expect, it } from 'vitest';
import { createInstanceNoise, createScriptedNoise } from './scripted-noise';

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

  it('an instance stream is fixed by seed and request ID, and differs between arms', () => {
    const a = createInstanceNoise(7, 'confabulator.history.w1.A.c1.update');
    const again = createInstanceNoise(7, 'confabulator.history.w1.A.c1.update');
    const a2 = createInstanceNoise(7, 'confabulator.history.w1.A2.c1.update');
    expect(a.uniform('forget:x')).toBe(again.uniform('forget:x'));
    expect(a2.uniform('forget:x')).not.toBe(a.uniform('forget:x'));
    expect(
      createInstanceNoise(8, 'confabulator.history.w1.A.c1.update').uniform('forget:x'),
    ).not.toBe(a.uniform('forget:x'));
  });
});
