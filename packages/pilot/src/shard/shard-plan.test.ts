import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defaultOfflineSettings } from '../index';
import { planRun } from '../run-folder/run-create';
import { scriptedSystemSpec } from '../scripted/scripted-systems';
import { shardCeilingsUsd } from './shard-ceiling';
import { planUnits, shardPlan, shardRequestCounts } from './shard-plan';
import { parseShardSpec } from './shard-spec';

const settings = defaultOfflineSettings({
  replicates: 2,
  loads: [32],
  systems: ['capacity-keeper', 'latest-wins', 'abstainer'].map((name) =>
    scriptedSystemSpec(name, 7),
  ),
});
const whole = planRun({ settings, now: () => new Date('2026-09-01T00:00:00Z') }).plan;

describe('shardPlan', () => {
  it('partitions the plan into whole (world seed, system) units, each request exactly once', () => {
    for (const count of [1, 2, 3, 4, 6]) {
      const parts = Array.from({ length: count }, (_, i) =>
        shardPlan(whole, { index: i + 1, count }),
      );
      const ids = parts.flatMap((part) => part.requests.map((request) => request.requestId));
      expect(ids.sort()).toEqual(whole.requests.map((request) => request.requestId).sort());
      expect(parts.map((part) => part.requests.length)).toEqual(
        shardRequestCounts(whole, count).slice(1),
      );
      for (const part of parts) {
        // a unit never crosses shards: every (world, system) of a part is whole there
        const units = new Set(part.requests.map((r) => `${r.worldSeed}/${r.systemId}`));
        for (const unit of units) {
          const [seed, system] = unit.split('/');
          const all = whole.requests.filter(
            (r) => `${r.worldSeed}` === seed && r.systemId === system,
          );
          expect(part.requests.filter((r) => `${r.worldSeed}/${r.systemId}` === unit)).toEqual(all);
        }
        // the plan's order is kept
        const order = whole.requests.map((r) => r.requestId);
        const positions = part.requests.map((r) => order.indexOf(r.requestId));
        expect(positions).toEqual([...positions].sort((a, b) => a - b));
      }
    }
  });

  it('numbers units world by world, systems in manifest order, round robin over shards', () => {
    const units = [...planUnits(whole).keys()].map((key) => key.replace('\u0000', '/'));
    const seeds = [...new Set(whole.requests.map((r) => r.worldSeed))];
    expect(units).toEqual(
      seeds.flatMap((seed) =>
        ['capacity-keeper', 'latest-wins', 'abstainer'].map((s) => `${seed}/${s}`),
      ),
    );
    const second = shardPlan(whole, { index: 2, count: 4 });
    expect(new Set(second.requests.map((r) => `${r.worldSeed}/${r.systemId}`))).toEqual(
      new Set([units[1], units[5]]),
    );
  });

  it('refuses a shard that would run nothing, naming --shard', () => {
    expect(() => shardPlan(whole, { index: 7, count: 7 })).toThrow(
      /--shard.*6 \(world seed, system\) unit/,
    );
  });
});

describe('parseShardSpec', () => {
  it('reads i/n, 1-based, and refuses anything else naming --shard', () => {
    expect(parseShardSpec('2/3')).toEqual({ index: 2, count: 3 });
    for (const bad of ['0/3', '4/3', '1', '1/0', 'a/b', '-1/2', '1/2/3'])
      expect(() => parseShardSpec(bad), bad).toThrow(/--shard/);
  });
});

describe('shardCeilingsUsd', () => {
  it('never gives the shards together more than the ceiling (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1e6, noNaN: true }),
        fc.array(fc.integer({ min: 0, max: 1_000_000 }), { minLength: 1, maxLength: 64 }),
        (ceilingUsd, counts) => {
          const shares = shardCeilingsUsd(ceilingUsd, [0, ...counts]);
          const micros = shares.map((share) => Math.round(share * 1e6));
          // each share is a whole number of micro-dollars; their exact sum is within the ceiling
          for (const [index, share] of shares.entries()) {
            expect((micros[index] as number) / 1e6).toBe(share);
            expect(share).toBeGreaterThanOrEqual(0);
          }
          const totalMicros = micros.reduce((sum, m) => sum + m, 0);
          expect(totalMicros / 1e6).toBeLessThanOrEqual(ceilingUsd);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('splits in proportion to planned requests, rounding down', () => {
    expect(shardCeilingsUsd(1, [0, 1, 1, 1])).toEqual([0, 0.333333, 0.333333, 0.333333]);
    expect(shardCeilingsUsd(10, [0, 3, 1])).toEqual([0, 7.5, 2.5]);
    expect(shardCeilingsUsd(0.3, [0, 1, 2])).toEqual([0, 0.1, 0.2]);
  });
});
