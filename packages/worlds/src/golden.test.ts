import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateBehavioralItems } from './behavioral-items';
import { generateHistoryWorld } from './history-world';
import { generateMemoryWorld } from './memory-world';

// Fixed seeds must keep producing byte-identical data on every platform and release. When a
// change to the generators is intended, bump GENERATOR_VERSION and rewrite the snapshots with
// `UPDATE_GOLDEN=1 npx vitest run --project worlds src/golden.test.ts`, and say why in the commit.

const fixtureUrl = new URL('./__fixtures__/golden.json', import.meta.url);

/** JSON with object keys sorted at every level (our data holds only strings, integers, null). */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([left], [right]) =>
      left < right ? -1 : left > right ? 1 : 0,
    );
    return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${canonicalJson(entry)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

interface GoldenCase {
  readonly name: string;
  readonly sha256: string;
  readonly sample: unknown;
}

function snapshots(): GoldenCase[] {
  const cases: GoldenCase[] = [];
  for (const [seed, load] of [
    [1, 32],
    [20260901, 256],
    [7, 10000],
  ] as const) {
    const world = generateMemoryWorld({ seed, load });
    cases.push({
      name: `memory seed ${seed} load ${load}`,
      sha256: sha256(canonicalJson(world)),
      sample: {
        counts: world.counts,
        records: world.records
          .slice(0, 3)
          .map((record, index) => ({ ...record, role: world.recordRoles[index] })),
        answerKey: world.answerKey.slice(0, 3),
      },
    });
  }
  const history = generateHistoryWorld({ seed: 1 });
  cases.push({
    name: 'history seed 1',
    sha256: sha256(canonicalJson(history)),
    sample: {
      counterbalance: history.counterbalance,
      environments: history.environments,
      firstEvidenceA: history.histories.A[1]?.evidence[0],
      validAnswersA: history.validAnswers.A,
    },
  });
  const items = generateBehavioralItems({ seed: 1 });
  cases.push({
    name: 'behavioral items seed 1',
    sha256: sha256(canonicalJson(items)),
    sample: {
      firstItem: items.items[0],
      key: items.key.map((entry) => `${entry.half} ${entry.axis} ${entry.expected}`),
    },
  });
  return cases;
}

describe('golden snapshots', () => {
  it('fixed seeds reproduce the committed hashes and samples', () => {
    const current = snapshots();
    if (process.env.UPDATE_GOLDEN === '1')
      writeFileSync(fixtureUrl, `${JSON.stringify(current, null, 2)}\n`);
    const committed = JSON.parse(readFileSync(fixtureUrl, 'utf8')) as GoldenCase[];
    expect(current).toEqual(committed);
  });

  it('hashes canonical JSON, independent of key order', () => {
    expect(canonicalJson({ b: 1, a: [null, 'x', { d: 2, c: 3 }] })).toBe(
      '{"a":[null,"x",{"c":3,"d":2}],"b":1}',
    );
    expect(sha256('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
});
