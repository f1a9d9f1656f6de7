import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { outcomesFromAttemptLog } from '@chi/run';
import { readAttemptLogLean } from '@chi/run/internal';
import { type AttemptRecord, AttemptRecordSchema } from '@chi/spec';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixtureRun } from '../__fixtures__/fixture-run';
import { tempDir } from '../__fixtures__/temp-dir';
import { canonicalJson, sha256Hex } from '../canonical-json';

/** The whole log parsed at once: what the on-demand records must be equal to. */
async function parsedLog(path: string): Promise<AttemptRecord[]> {
  const text = await readFile(path, 'utf8');
  return text
    .split('\n')
    .slice(0, -1)
    .map((line) => AttemptRecordSchema.parse(JSON.parse(line)));
}

describe('attempt records read on demand', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let manifestSha256: string;
  let full: AttemptRecord[];
  beforeAll(async () => {
    dir = await tempDir('attempts-on-disk');
    await buildFixtureRun(dir.path, { seeds: [11, 12] });
    const manifest = JSON.parse(await readFile(join(dir.path, 'manifest.json'), 'utf8'));
    manifestSha256 = sha256Hex(canonicalJson(manifest));
    full = await parsedLog(join(dir.path, 'attempts.jsonl'));
  });
  afterAll(async () => dir.remove());

  it('answers every index, in any order, with the record the whole parse gives', async () => {
    const { attempts, chain } = await readAttemptLogLean(dir.path, manifestSha256, null);
    expect(chain.problems).toEqual([]);
    expect(attempts).toHaveLength(full.length);
    expect(full.length).toBeGreaterThan(10);
    fc.assert(
      fc.property(fc.array(fc.nat({ max: full.length - 1 }), { maxLength: 40 }), (indices) => {
        for (const index of indices)
          expect(JSON.stringify(attempts[index])).toBe(JSON.stringify(full[index]));
      }),
    );
    expect(attempts[full.length]).toBeUndefined();
    expect(Array.isArray(attempts)).toBe(true);
  });

  it('iterates, filters and folds as the whole parse does (the runner fold included)', async () => {
    const { attempts } = await readAttemptLogLean(dir.path, manifestSha256, null);
    expect([...attempts].map((a) => JSON.stringify(a))).toEqual(full.map((a) => JSON.stringify(a)));
    const resolved = (a: AttemptRecord) => a.phase === 'after_response';
    expect(attempts.filter(resolved).map((a) => a.attemptId)).toEqual(
      full.filter(resolved).map((a) => a.attemptId),
    );
    const seen: number[] = [];
    attempts.forEach((_, index) => {
      seen.push(index);
    });
    expect(seen).toEqual(full.map((_, index) => index));
    expect(JSON.stringify(attempts)).toBe(JSON.stringify(full));
    const onDisk = outcomesFromAttemptLog(attempts);
    const whole = outcomesFromAttemptLog(full);
    expect([...onDisk.keys()]).toEqual([...whole.keys()]);
    for (const [requestId, outcome] of whole)
      expect(JSON.stringify(onDisk.get(requestId))).toBe(JSON.stringify(outcome));
  });

  it('reads windows across the file: a log larger than one read window answers alike', async () => {
    // every record repeated until the log is several times the 1 MiB read window
    const path = join(dir.path, 'attempts.jsonl');
    const original = await readFile(path, 'utf8');
    const copies = Math.ceil((3 << 20) / original.length);
    const big = await tempDir('attempts-on-disk-big');
    try {
      await writeFile(join(big.path, 'attempts.jsonl'), original.repeat(copies));
      const { attempts } = await readAttemptLogLean(big.path, manifestSha256, null);
      expect(attempts).toHaveLength(full.length * copies);
      const last = attempts.length - 1;
      for (const index of [0, last, Math.floor(last / 2), 1, last - 1])
        expect(JSON.stringify(attempts[index])).toBe(JSON.stringify(full[index % full.length]));
      expect(
        attempts.every((a, index) => a.attemptId === full[index % full.length]?.attemptId),
      ).toBe(true);
    } finally {
      await big.remove();
    }
  });

  it('refuses to be written to', async () => {
    const { attempts } = await readAttemptLogLean(dir.path, manifestSha256, null);
    expect(() => {
      (attempts as AttemptRecord[])[0] = full[1] as AttemptRecord;
    }).toThrow(TypeError);
    expect(() => (attempts as AttemptRecord[]).push(full[0] as AttemptRecord)).toThrow(TypeError);
  });
});
