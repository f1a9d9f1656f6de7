import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PackedObservations } from './packed-observations';

/** Observation-like values with what a JSON round trip would lose: -0, NaN, +-Infinity, undefined. */
const value = fc.oneof(
  fc.double(),
  fc.constantFrom(-0, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
  fc.constant(null),
  fc.constant(undefined),
  fc.boolean(),
  fc.string(),
  fc.array(fc.double(), { maxLength: 4 }),
);
// plain objects, as the scorers make them (a null prototype would not survive, nor does it occur)
const observation = fc.record(
  {
    kind: fc.constantFrom('memory-observation', 'history-observation'),
    systemId: fc.string(),
    worldSeed: fc.integer(),
    blockComplete: fc.boolean(),
    unusableRequests: fc.array(
      fc.record({ requestId: fc.string(), reason: fc.string() }, { noNullPrototype: true }),
      { maxLength: 2 },
    ),
    score: fc.dictionary(
      fc.string(),
      fc.oneof(value, fc.dictionary(fc.string(), value, { noNullPrototype: true })),
      { maxKeys: 6, noNullPrototype: true },
    ),
  },
  { noNullPrototype: true },
);

describe('PackedObservations', () => {
  it('gives back exactly the observations added, in order, however they are chunked and batched', () => {
    fc.assert(
      fc.property(
        fc.array(observation, { maxLength: 40 }),
        fc.integer({ min: 1, max: 9 }),
        fc.array(fc.integer({ min: 0, max: 7 }), { maxLength: 10 }),
        (observations, chunkSize, cuts) => {
          const packed = new PackedObservations<(typeof observations)[number]>(chunkSize);
          let start = 0;
          for (const cut of cuts) {
            packed.push(observations.slice(start, start + cut));
            start += cut;
          }
          packed.push(observations.slice(start, start + 3));
          if (cuts.length % 2 === 1) packed.flush();
          packed.push(observations.slice(start + 3));
          expect(packed.length).toBe(observations.length);
          // the object path is the oracle: equal in every respect it could see (-0, NaN, undefined)
          expect(packed.toArray()).toStrictEqual(observations);
          expect([...packed]).toStrictEqual(observations);
        },
      ),
    );
  });

  it('hands out copies: a reader changing what it read changes nothing for the next reader', () => {
    const packed = new PackedObservations<{ score: { value: number } }>(2);
    const added = [{ score: { value: 1 } }, { score: { value: 2 } }, { score: { value: 3 } }];
    packed.push(added);
    const first = packed.toArray();
    for (const o of first) o.score.value = 0;
    for (const o of added) o.score.value = -1;
    expect(packed.toArray()).toEqual([
      { score: { value: 1 } },
      { score: { value: 2 } },
      { score: { value: 3 } },
    ]);
    expect(packed.toArray()[2]).not.toBe(packed.toArray()[2]);
  });

  it('refuses a chunk size that is not a positive integer', () => {
    expect(() => new PackedObservations(0)).toThrow(RangeError);
    expect(() => new PackedObservations(1.5)).toThrow(RangeError);
  });
});
