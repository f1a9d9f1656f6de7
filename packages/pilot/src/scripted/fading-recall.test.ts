import {
  answerMemoryQuestions,
  fadingRecall,
  loadOfRecordCount,
  readMemoryNotes,
  type ScriptedMemoryPolicy,
  writeMemoryNotes,
} from '@chi/experiments/internal';
import {
  eimcFromScores,
  meanFactors,
  parseProbeReply,
  qualityScore,
  scoreMemoryProbes,
} from '@chi/scoring';
import type { QualityFactors } from '@chi/spec';
import { generateMemoryWorld } from '@chi/worlds';
import { describe, expect, it } from 'vitest';
import { fadingRecallQualityScore } from '../interval-coverage/pilot-coverage';
import { createInstanceNoise } from './scripted-noise';
import { SCRIPTED_SYSTEMS } from './scripted-systems';

// The opt-in fading-recall system against its derived law (docs/protocol.md, "A scripted system
// with a known, interior EIMC"): 40 worlds per load, its notes written and read back as in the
// notebook condition, its answers drawn from its per-instance stream and scored by @chi/scoring.
const LOADS = [32, 64, 128, 256];
const WORLDS = 40;

function curve(policy: ScriptedMemoryPolicy): { factors: QualityFactors[]; scores: number[] } {
  const factors = LOADS.map((load) => {
    const perWorld = Array.from({ length: WORLDS }, (_, index) => {
      const world = generateMemoryWorld({ seed: 1000 + index, load });
      const noise = createInstanceNoise(20260901, `fading.w${index}.n${load}`);
      const notes = readMemoryNotes(writeMemoryNotes(world.records, policy, 1e9, noise));
      expect(loadOfRecordCount(notes.length)).toBe(load);
      const answers = answerMemoryQuestions(notes, world.probes, policy, noise);
      const parsed = parseProbeReply(
        JSON.stringify(answers),
        world.probes.map((probe) => probe.id),
      );
      return scoreMemoryProbes(world.answerKey, parsed).factors;
    });
    return meanFactors(perWorld);
  });
  return { factors, scores: factors.map((f) => qualityScore(f)) };
}

describe('fading-recall: a scripted system with a known, interior EIMC', () => {
  const fading = SCRIPTED_SYSTEMS['fading-recall'].policies.memory;
  const measured = curve(fading);

  it('its factors land on q = 2^(-N/256) (t on (1 + 3q) / 4, 1 - f = 1) at every load', () => {
    LOADS.forEach((load, index) => {
      const q = fadingRecall(load, 256);
      const f = measured.factors[index] as QualityFactors;
      for (const factor of [f.r, f.s, f.u, f.i]) expect(Math.abs(factor - q)).toBeLessThan(0.09);
      expect(Math.abs(f.t - (1 + 3 * q) / 4)).toBeLessThan(0.09);
      expect(f.oneMinusF).toBe(1);
    });
  });

  it('its Q_M lands on the derived curve and its EIMC is interior: 32, 64, 128 at tau 0.9, 0.8, 0.7', () => {
    const derived = LOADS.map(fadingRecallQualityScore);
    expect(derived.map((v) => Number(v.toFixed(3)))).toEqual([0.934, 0.872, 0.762, 0.582]);
    for (const [index] of LOADS.entries())
      expect(
        Math.abs((measured.scores[index] as number) - (derived[index] as number)),
      ).toBeLessThan(0.05);
    for (const [tau, eimc] of [
      [0.9, 32],
      [0.8, 64],
      [0.7, 128],
    ] as const) {
      expect(eimcFromScores(LOADS, derived, tau)).toBe(eimc);
      expect(eimcFromScores(LOADS, measured.scores, tau)).toBe(eimc);
    }
  });

  it('a system without the fading fails it: perfect is at Q_M 1 and EIMC 256 (censored) at every tau', () => {
    const perfect = curve(SCRIPTED_SYSTEMS.perfect.policies.memory);
    expect(perfect.scores).toEqual([1, 1, 1, 1]);
    expect(Math.abs((perfect.scores[3] as number) - fadingRecallQualityScore(256))).toBeGreaterThan(
      0.3,
    );
    for (const tau of [0.7, 0.8, 0.9]) expect(eimcFromScores(LOADS, perfect.scores, tau)).toBe(256);
  });
});
