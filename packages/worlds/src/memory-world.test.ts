import {
  type AnswerKeyEntry,
  InvalidArgumentError,
  type MemoryRecord,
  type MemoryWorld,
  MemoryWorldSchema,
  parseWith,
  STRATA,
  type Stratum,
} from '@chi/spec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AsOfBranch, asOfBranchCounts } from './as-of-branches';
import { MEMORY_KEY_PATTERN } from './memory-keys';
import { generateMemoryWorld } from './memory-world';
import { indexRecords } from './precedence';
import { minimumMemoryLoad, PILOT_LOADS } from './presets';

import { GENERATOR_VERSION } from './version';

const seedArbitrary = fc.nat({ max: 0xffffffff });
/** A probe count and a load from the smallest valid one up to a few hundred. */
const designArbitrary = fc.integer({ min: 1, max: 10 }).chain((probesPerStratum) =>
  fc.record({
    seed: seedArbitrary,
    probesPerStratum: fc.constant(probesPerStratum),
    load: fc.integer({ min: minimumMemoryLoad(probesPerStratum), max: 400 }),
  }),
);
const RUNS = { numRuns: 60 };

function recordsByKey(world: MemoryWorld): Map<string, { record: MemoryRecord; index: number }[]> {
  const byKey = new Map<string, { record: MemoryRecord; index: number }[]>();
  world.records.forEach((record, index) => {
    const list = byKey.get(record.key) ?? [];
    list.push({ record, index });
    byKey.set(record.key, list);
  });
  return byKey;
}

function entriesOf(world: MemoryWorld, stratum: Stratum) {
  return world.answerKey.filter((entry) => entry.stratum === stratum);
}

/** The records of a key eligible as of a cutoff (eventTime <= cutoff), oldest first. */
function eligibleRecords(world: MemoryWorld, key: string, cutoff: string): MemoryRecord[] {
  return world.records
    .filter((record) => record.key === key && Date.parse(record.eventTime) <= Date.parse(cutoff))
    .sort((left, right) => Date.parse(left.eventTime) - Date.parse(right.eventTime));
}

/**
 * Which branch of the as-of rule a t entry takes, read from the records alone: no eligible
 * record; one; several where the latest eligible record wins; several where an older,
 * higher-authority record beats the latest one.
 */
function asOfBranchOf(world: MemoryWorld, entry: AnswerKeyEntry): AsOfBranch {
  const eligible = eligibleRecords(world, entry.key, entry.asOf as string);
  if (eligible.length === 0) return 'none_eligible';
  if (eligible.length === 1) return 'one_eligible';
  const latest = eligible.at(-1) as MemoryRecord;
  if (latest.value === entry.expectedValue) return 'later_wins';
  const winner = eligible.find((record) => record.value === entry.expectedValue);
  expect(winner?.authority).toBeGreaterThan(latest.authority);
  return 'authority_wins';
}

const differsInOneCharacter = (left: string, right: string): boolean =>
  left.length === right.length &&
  [...left].filter((character, index) => character !== right[index]).length === 1;

describe('generateMemoryWorld: options', () => {
  it('names the smallest valid load when a stratum cannot be filled', () => {
    expect(() => generateMemoryWorld({ seed: 1, load: 31 })).toThrow(InvalidArgumentError);
    expect(() => generateMemoryWorld({ seed: 1, load: 31 })).toThrow(
      /^load: the smallest valid load for probesPerStratum 8 is 32, found 31/,
    );
    expect(() => generateMemoryWorld({ seed: 1, load: 1, probesPerStratum: 1 })).toThrow(
      /smallest valid load for probesPerStratum 1 is 4, found 1/,
    );
    expect(generateMemoryWorld({ seed: 1, load: 4, probesPerStratum: 1 }).probes).toHaveLength(6);
  });

  it('rejects bad seeds, loads and probe counts with the field name', () => {
    expect(() => generateMemoryWorld({ seed: -1, load: 32 })).toThrow(/^seed: /);
    expect(() => generateMemoryWorld({ seed: 1.5, load: 32 })).toThrow(/^seed: /);
    expect(() => generateMemoryWorld({ seed: 1, load: 32.5 })).toThrow(
      /^load: expected an integer from 1 to 2000000, found 32.5/,
    );
    expect(() => generateMemoryWorld({ seed: 1, load: 2_000_001 })).toThrow(/^load: /);
    expect(() => generateMemoryWorld({ seed: 1, load: 32, probesPerStratum: 0 })).toThrow(
      /^probesPerStratum: expected a positive integer, found 0/,
    );
  });
});

describe('generateMemoryWorld: a pilot world', () => {
  const world = generateMemoryWorld({ seed: 1, load: 32 });

  it('has the registered counts and satisfies the published schema', () => {
    expect(() => parseWith(MemoryWorldSchema, world, 'memory world')).not.toThrow();
    expect(world.counts).toEqual({
      targets: 32,
      distractors: 32,
      updates: 8,
      conflicts: 8,
      lures: 8,
      records: 80,
    });
    expect(world.generator).toEqual({ name: '@chi/worlds', version: GENERATOR_VERSION });
    expect(world.probes).toHaveLength(48);
  });

  it('works at every pilot load', () => {
    for (const load of PILOT_LOADS) {
      const generated = generateMemoryWorld({ seed: 3, load });
      expect(generated.records).toHaveLength(2 * load + 2 * Math.floor(load / 4));
    }
  });
});

describe('generateMemoryWorld: properties over seeds and loads', () => {
  it('has N targets, N distractors, floor(N/4) updates and conflicts, and P probes per stratum', () => {
    fc.assert(
      fc.property(designArbitrary, ({ seed, load, probesPerStratum }) => {
        const world = generateMemoryWorld({ seed, load, probesPerStratum });
        const roles = new Map<string, number>();
        for (const role of world.recordRoles) roles.set(role, (roles.get(role) ?? 0) + 1);
        const quarter = Math.floor(load / 4);
        expect(world.recordRoles).toHaveLength(world.records.length);
        expect(Object.fromEntries(roles)).toEqual({
          target: load,
          distractor: load,
          ...(quarter > 0 ? { update: quarter, conflict: quarter } : {}),
        });
        expect(world.counts).toEqual({
          targets: load,
          distractors: load,
          updates: quarter,
          conflicts: quarter,
          lures: probesPerStratum,
          records: 2 * load + 2 * quarter,
        });
        for (const stratum of STRATA)
          expect(entriesOf(world, stratum)).toHaveLength(probesPerStratum);
      }),
      RUNS,
    );
  });

  it('never holds two records of one key with equal authority and equal eventTime', () => {
    fc.assert(
      fc.property(designArbitrary, ({ seed, load, probesPerStratum }) => {
        const world = generateMemoryWorld({ seed, load, probesPerStratum });
        const seen = new Set<string>();
        for (const record of world.records) {
          const slot = `${record.key}|${record.authority}|${record.eventTime}`;
          if (seen.has(slot)) return false;
          seen.add(slot);
        }
        return true;
      }),
      RUNS,
    );
  });

  it('stores expected answers equal to resolveCurrent / resolveAsOf over all records', () => {
    fc.assert(
      fc.property(designArbitrary, ({ seed, load, probesPerStratum }) => {
        const world = generateMemoryWorld({ seed, load, probesPerStratum });
        const index = indexRecords(world.records);
        return world.answerKey.every((entry) => {
          const truth = index.resolve(entry.key, entry.asOf);
          return truth.value === entry.expectedValue && truth.source === entry.expectedSource;
        });
      }),
      RUNS,
    );
  });

  it('gives each stratum its meaning', () => {
    fc.assert(
      fc.property(designArbitrary, ({ seed, load, probesPerStratum }) => {
        const world = generateMemoryWorld({ seed, load, probesPerStratum });
        const byKey = recordsByKey(world);
        const index = indexRecords(world.records);
        const rolesOf = (key: string) =>
          (byKey.get(key) ?? []).map(({ index: at }) => world.recordRoles[at]);
        // r and s: plain targets, one record, current state.
        for (const entry of [...entriesOf(world, 'r'), ...entriesOf(world, 's')]) {
          expect(rolesOf(entry.key)).toEqual(['target']);
          expect(entry.asOf).toBeNull();
        }
        // u: the answer is the authoritative update, which replaced a different original value.
        for (const entry of entriesOf(world, 'u')) {
          const list = byKey.get(entry.key) ?? [];
          const update = list.find(({ index: at }) => world.recordRoles[at] === 'update');
          const original = list.find(({ index: at }) => world.recordRoles[at] === 'target');
          expect(update?.record.authority).toBe(2);
          expect(entry.expectedValue).toBe(update?.record.value);
          expect(original?.record.value).not.toBe(update?.record.value);
          expect((original?.record.eventTime ?? '') < (update?.record.eventTime ?? '')).toBe(true);
        }
        // i: a latest-wins reader is fooled: the latest record is a lower-authority conflict.
        for (const entry of entriesOf(world, 'i')) {
          const list = byKey.get(entry.key) ?? [];
          const latest = [...list].sort((left, right) =>
            left.record.eventTime < right.record.eventTime ? 1 : -1,
          )[0];
          expect(world.recordRoles[latest?.index ?? -1]).toBe('conflict');
          expect(latest?.record.authority).toBe(1);
          expect(latest?.record.value).not.toBe(entry.expectedValue);
          expect(rolesOf(entry.key).sort()).toEqual(['conflict', 'target']);
        }
        // t: each branch of the as-of rule in its documented number, with its meaning.
        const counts = { none_eligible: 0, one_eligible: 0, authority_wins: 0, later_wins: 0 };
        for (const entry of entriesOf(world, 't')) {
          expect(entry.asOf).not.toBeNull();
          const branch = asOfBranchOf(world, entry);
          counts[branch]++;
          if (branch === 'none_eligible') {
            expect(byKey.has(entry.key)).toBe(true); // a recorded key, asked too early
            expect(entry.expectedValue).toBeNull();
            expect(entry.expectedSource).toBeNull();
          } else if (branch === 'one_eligible') {
            // The filter matters: the current answer (the update) is not the as-of answer.
            expect(entry.expectedValue).not.toBe(index.resolveCurrent(entry.key).value);
          }
        }
        expect(counts).toEqual(asOfBranchCounts(probesPerStratum));
        // f: never recorded, unknown.
        for (const entry of entriesOf(world, 'f')) {
          expect(byKey.has(entry.key)).toBe(false);
          expect(entry.expectedValue).toBeNull();
          expect(entry.expectedSource).toBeNull();
        }
      }),
      RUNS,
    );
  });

  it('makes every key look alike and every lure an unrecorded key', () => {
    fc.assert(
      fc.property(designArbitrary, ({ seed, load, probesPerStratum }) => {
        const world = generateMemoryWorld({ seed, load, probesPerStratum });
        const recorded = new Set(world.records.map((record) => record.key));
        const allKeys = [...recorded, ...world.probes.map((probe) => probe.key)];
        expect(allKeys.every((key) => MEMORY_KEY_PATTERN.test(key))).toBe(true);
        const lures = entriesOf(world, 'f').map((entry) => entry.key);
        expect(new Set(lures).size).toBe(lures.length);
        expect(lures.some((lure) => recorded.has(lure))).toBe(false);
      }),
      RUNS,
    );
  });

  it('pairs every target with a near-miss distractor of the same source and authority', () => {
    fc.assert(
      fc.property(designArbitrary, ({ seed, load, probesPerStratum }) => {
        const world = generateMemoryWorld({ seed, load, probesPerStratum });
        const targets = world.records.filter((_, at) => world.recordRoles[at] === 'target');
        const distractors = world.records.filter((_, at) => world.recordRoles[at] === 'distractor');
        const targetKeys = new Set(targets.map((target) => target.key));
        for (const distractor of distractors) {
          expect(targetKeys.has(distractor.key)).toBe(false);
          const twin = targets.find(
            (target) =>
              differsInOneCharacter(target.key, distractor.key) &&
              target.source === distractor.source &&
              target.authority === distractor.authority,
          );
          expect(twin).toBeDefined();
        }
        expect(new Set(distractors.map((distractor) => distractor.key)).size).toBe(
          distractors.length,
        );
      }),
      { numRuns: 20 },
    );
  });

  it('uses opaque, unique probe IDs and never asks one question twice', () => {
    fc.assert(
      fc.property(designArbitrary, ({ seed, load, probesPerStratum }) => {
        const world = generateMemoryWorld({ seed, load, probesPerStratum });
        const ids = world.probes.map((probe) => probe.id);
        expect(ids.every((id) => /^q-[0-9a-hjkmnp-tv-z]{8}$/.test(id))).toBe(true);
        expect(new Set(ids).size).toBe(ids.length);
        expect(world.answerKey.map((entry) => entry.id)).toEqual(ids);
        expect(world.probes.map((probe) => `${probe.key}|${probe.asOf}`)).toEqual(
          world.answerKey.map((entry) => `${entry.key}|${entry.asOf}`),
        );
        const questions = new Set(world.probes.map((probe) => `${probe.key}|${probe.asOf}`));
        expect(questions.size).toBe(world.probes.length);
        expect(Object.keys(world.probes[0] ?? {}).sort()).toEqual(['asOf', 'id', 'key']);
      }),
      RUNS,
    );
  });

  it('writes event times as whole minutes after the 2026-01-01 epoch, and update/conflict after their target', () => {
    fc.assert(
      fc.property(designArbitrary, ({ seed, load, probesPerStratum }) => {
        const world = generateMemoryWorld({ seed, load, probesPerStratum });
        for (const record of world.records) {
          expect(record.eventTime).toMatch(/^2026-\d{2}-\d{2}T\d{2}:\d{2}:00\.000Z$/);
          expect(record.value).toMatch(/^[0-9a-f]{8}$/);
        }
        for (const [, list] of recordsByKey(world)) {
          const target = list.find(({ index: at }) => world.recordRoles[at] === 'target');
          for (const { record, index: at } of list) {
            if (world.recordRoles[at] === 'update' || world.recordRoles[at] === 'conflict') {
              expect(record.eventTime > (target?.record.eventTime ?? '')).toBe(true);
              expect(record.source).not.toBe(target?.record.source);
            }
            if (world.recordRoles[at] === 'conflict') expect(target?.record.authority).toBe(2);
          }
        }
        for (const probe of world.probes)
          if (probe.asOf !== null) expect(probe.asOf).toMatch(/:00\.000Z$/);
      }),
      { numRuns: 20 },
    );
  });

  it('is a pure function of its options; records do not depend on the probe count', () => {
    fc.assert(
      fc.property(seedArbitrary, fc.integer({ min: 40, max: 120 }), (seed, load) => {
        const first = generateMemoryWorld({ seed, load });
        expect(generateMemoryWorld({ seed, load })).toEqual(first);
        expect(generateMemoryWorld({ seed, load, probesPerStratum: 2 }).records).toEqual(
          first.records,
        );
        expect(generateMemoryWorld({ seed: (seed + 1) >>> 0, load }).records).not.toEqual(
          first.records,
        );
      }),
      { numRuns: 10 },
    );
  });
});

describe('generateMemoryWorld: the as-of stratum tests the rule it names', () => {
  /** A reader's value for a t question, compared with the answer key (unknown = null). */
  type Reader = (world: MemoryWorld, key: string, cutoff: string) => string | null;
  const failures = (world: MemoryWorld, reader: Reader): number =>
    entriesOf(world, 't').filter(
      (entry) => reader(world, entry.key, entry.asOf as string) !== entry.expectedValue,
    ).length;
  const recordsOf = (world: MemoryWorld, key: string) =>
    world.records
      .filter((record) => record.key === key)
      .sort((left, right) => Date.parse(left.eventTime) - Date.parse(right.eventTime));

  /** Always the key's oldest record, whatever the cutoff: passed every t probe before issue #14. */
  const oldest: Reader = (world, key) => recordsOf(world, key)[0]?.value ?? null;
  /** Applies the cutoff, then takes the latest eligible record, ignoring authority. */
  const latestEligible: Reader = (world, key, cutoff) =>
    eligibleRecords(world, key, cutoff).at(-1)?.value ?? null;
  /** Applies precedence but ignores the cutoff. */
  const ignoresCutoff: Reader = (world, key) =>
    indexRecords(world.records).resolveCurrent(key).value;
  /** The rule itself: filter, then precedence; unknown when nothing is eligible. */
  const rule: Reader = (world, key, cutoff) =>
    indexRecords(world.records).resolveAsOf(key, cutoff).value;

  const seeds = [1, 20260901, 4_000_000_007];

  it.each(PILOT_LOADS)('at load %i: two t probes per branch, never-eligible included', (load) => {
    for (const seed of seeds) {
      const world = generateMemoryWorld({ seed, load });
      const counts = { none_eligible: 0, one_eligible: 0, authority_wins: 0, later_wins: 0 };
      for (const entry of entriesOf(world, 't')) counts[asOfBranchOf(world, entry)]++;
      expect(counts).toEqual({
        none_eligible: 2,
        one_eligible: 2,
        authority_wins: 2,
        later_wins: 2,
      });
    }
  });

  it.each(PILOT_LOADS)(
    'at load %i: a reader returning the oldest record fails some t probes',
    (load) => {
      for (const seed of seeds) {
        // It fails the never-eligible and later-wins probes (2 + 2 of 8).
        expect(failures(generateMemoryWorld({ seed, load }), oldest)).toBe(4);
      }
    },
  );

  it.each(PILOT_LOADS)(
    'at load %i: other shortcut readers fail some t probes, the rule none',
    (load) => {
      for (const seed of seeds) {
        const world = generateMemoryWorld({ seed, load });
        // Latest eligible record, ignoring authority: fails where authority beats recency.
        expect(failures(world, latestEligible)).toBe(2);
        // Precedence without the cutoff: fails the one-eligible and never-eligible probes.
        expect(failures(world, ignoresCutoff)).toBe(4);
        expect(failures(world, rule)).toBe(0);
      }
    },
  );

  it('never-eligible probes are passed only by an explicit abstention', () => {
    const world = generateMemoryWorld({ seed: 5, load: 64 });
    const none = entriesOf(world, 't').filter(
      (entry) => asOfBranchOf(world, entry) === 'none_eligible',
    );
    expect(none).toHaveLength(2);
    for (const entry of none) {
      expect([entry.expectedValue, entry.expectedSource]).toEqual([null, null]);
      // The key is recorded (not a lure): its first record comes after the cutoff.
      const first = recordsOf(world, entry.key)[0] as MemoryRecord;
      expect(Date.parse(first.eventTime)).toBeGreaterThan(Date.parse(entry.asOf as string));
    }
  });
});

describe('generateMemoryWorld: nothing in a probe reveals its stratum', () => {
  it('spreads every stratum over presentation positions and ID order', () => {
    const firstByPosition = new Map<Stratum, number>();
    const firstById = new Map<Stratum, number>();
    for (let seed = 0; seed < 300; seed++) {
      const world = generateMemoryWorld({ seed, load: 32 });
      const atFront = world.answerKey[0]?.stratum as Stratum;
      firstByPosition.set(atFront, (firstByPosition.get(atFront) ?? 0) + 1);
      const smallestId = [...world.answerKey].sort((left, right) =>
        left.id < right.id ? -1 : 1,
      )[0]?.stratum as Stratum;
      firstById.set(smallestId, (firstById.get(smallestId) ?? 0) + 1);
    }
    // 300 worlds, six strata: about 50 each if order and IDs are independent of the stratum.
    for (const stratum of STRATA) {
      expect(firstByPosition.get(stratum) ?? 0).toBeGreaterThan(25);
      expect(firstById.get(stratum) ?? 0).toBeGreaterThan(25);
    }
  });

  it('puts records in an order that tells nothing about their role', () => {
    const targetsInFirstHalf: number[] = [];
    for (let seed = 0; seed < 50; seed++) {
      const world = generateMemoryWorld({ seed, load: 64 });
      const half = world.records.length / 2;
      targetsInFirstHalf.push(
        world.recordRoles.slice(0, half).filter((role) => role === 'target').length,
      );
    }
    const mean =
      targetsInFirstHalf.reduce((sum, count) => sum + count, 0) / targetsInFirstHalf.length;
    expect(Math.abs(mean - 32)).toBeLessThan(3);
  });
});
