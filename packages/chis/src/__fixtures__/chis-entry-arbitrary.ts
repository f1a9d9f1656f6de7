import type { ChisEntry, ChiResult } from '@chi/spec';
import fc from 'fast-check';

/** Any finite double; -0 becomes 0 because JSON has no negative zero (documented writer behaviour). */
const finiteNumber = (constraints: fc.DoubleConstraints = {}) =>
  fc
    .double({ noNaN: true, noDefaultInfinity: true, ...constraints })
    .map((x) => (Object.is(x, -0) ? 0 : x));

/** Strings across all of Unicode, including lone surrogates (JSON escapes them). */
const anyString = (minLength = 0) =>
  fc.oneof(
    fc.string({ unit: 'binary', minLength }),
    fc.string({ unit: 'grapheme', minLength }),
    fc.string({
      unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)),
      minLength,
    }),
  );

const isoTime = fc
  .date({
    min: new Date('0001-01-01T00:00:00.000Z'),
    max: new Date('9999-12-31T23:59:59.999Z'),
    noInvalidDate: true,
  })
  .map((date) => date.toISOString());

const unit = finiteNumber({ min: 0, max: 1 });
const count = fc.maxSafeNat();
const nonNegative = finiteNumber({ min: 0 });
const axes = { R: unit, M: unit, C: unit, A: unit, I: unit };

const chiResult: fc.Arbitrary<ChiResult> = fc.record({
  value: fc.option(finiteNumber({ min: 0, max: 100 }), { nil: null }),
  calibrationId: fc.option(anyString(), { nil: null }),
  reason: fc.option(anyString(), { nil: null }),
  axisSimilarity: fc.option(fc.record(axes, { requiredKeys: [] }), { nil: null }),
  weights: fc.record(axes, { requiredKeys: [] }),
});

/**
 * Any valid CHIS entry. Profile keys exclude `__proto__`, which the writer refuses on purpose
 * (JSON.parse + zod would silently drop it); that refusal has its own test.
 */
export const chisEntryArbitrary: fc.Arbitrary<ChisEntry> = fc.record({
  kind: fc.constant('chis-entry' as const),
  trajectoryId: anyString(1),
  systemId: anyString(1),
  evidenceClass: fc.constantFrom('live_model', 'scripted_baseline', 'fixture', 'synthetic'),
  worldSeed: fc.option(count, { nil: null }),
  history: fc.option(anyString(), { nil: null }),
  checkpoint: count,
  condition: anyString(1),
  recordedAt: isoTime,
  eventCount: count,
  scheduledOperations: count,
  elapsedWallMs: nonNegative,
  profile: fc.dictionary(
    anyString().filter((key) => key !== '__proto__'),
    fc.option(finiteNumber(), { nil: null }),
    { noNullPrototype: true, maxKeys: 6 },
  ),
  decisionVector: fc.option(fc.array(fc.option(unit, { nil: null }), { maxLength: 8 }), { nil: null }),
  chi: fc.option(chiResult, { nil: null }),
  state: fc.option(
    fc.record({
      sha256: fc.stringMatching(/^[0-9a-f]{64}$/),
      bytes: count,
      originalBytes: count,
      truncated: fc.boolean(),
    }),
    { nil: null },
  ),
  resources: fc.record({
    requests: count,
    promptTokens: fc.option(count, { nil: null }),
    completionTokens: fc.option(count, { nil: null }),
    costUsd: fc.option(nonNegative, { nil: null }),
    latencyMs: fc.option(nonNegative, { nil: null }),
  }),
});
