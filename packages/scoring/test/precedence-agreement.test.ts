import { generateMemoryWorld, indexRecords as indexWorldRecords } from '@chi/worlds';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { indexRecords, precedenceFor } from '../src/record-precedence';

// Scoring keeps its own precedence implementation so it does not depend on the generator at run
// time. This test pins the two definitions of truth together: on generated worlds, for every
// answer-key question and for every recorded key at several cutoffs, both pick the same record.
describe('precedence agrees with @chi/worlds', () => {
  it('for every probe and every key of generated worlds', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 0xffffffff }),
        fc.constantFrom(32, 40, 64),
        (seed, load) => {
          const world = generateMemoryWorld({ seed, load });
          const ours = indexRecords(world.records);
          const theirs = indexWorldRecords(world.records);
          const cutoffs: (string | null)[] = [
            null,
            ...world.answerKey.map((entry) => entry.asOf).filter((c) => c !== null),
          ];
          const keys = new Set([
            ...world.records.map((r) => r.key),
            ...world.answerKey.map((e) => e.key),
          ]);
          for (const key of keys) {
            for (const cutoff of cutoffs) {
              const winner = precedenceFor(ours, key, cutoff).winner;
              const resolved = theirs.resolve(key, cutoff);
              expect({ value: winner?.value ?? null, source: winner?.source ?? null }).toEqual({
                value: resolved.value,
                source: resolved.source,
              });
            }
          }
          for (const entry of world.answerKey) {
            const winner = precedenceFor(ours, entry.key, entry.asOf).winner;
            expect(winner?.value ?? null).toBe(entry.expectedValue);
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});
