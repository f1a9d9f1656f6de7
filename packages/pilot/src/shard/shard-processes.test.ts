/**
 * Shards as separate processes (`chi pilot --shard i/n`, the run's bundle of the CLI's sources like
 * the other process tests: `chiProcess`), merged with `chi merge`: 1, 2 and 3 shards give the
 * unsharded run's derived files byte for byte; a missing, duplicated or foreign shard is refused,
 * named; the merged release verifies from a copy.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { isPublishedRunFile } from '@chi/run/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chiProcess } from '../__fixtures__/chi-process';
import { captureIo } from '../__fixtures__/cli-io';
import { runCli } from '../cli/cli-main';

const CREATED_AT = '2026-09-01T00:00:00.000Z';
/** A frozen clock (tests only): every process stamps the same instants, so bytes can agree. */
const CLOCK = { CHI_TEST_CLOCK: CREATED_AT };
const PLAN = [
  '--systems',
  'capacity-keeper,latest-wins,abstainer',
  '--replicates',
  '2',
  '--loads',
  '32',
  '--no-controls',
  '--resamples',
  '40',
  '--seed',
  '4242',
  '--concurrency',
  '1',
  '--created-at',
  CREATED_AT,
];

let root: string;

/** `chi ARGS` as its own process under the frozen clock. */
const runCliProcess = (args: readonly string[]) => chiProcess(args, CLOCK);

const shardDir = (count: number, index: number) => join(root, `of${count}`, `shard-${index}`);

async function merge(dirs: readonly string[], out: string) {
  const cli = captureIo({ cwd: root, env: CLOCK });
  const code = await runCli(['merge', ...dirs, '--out', out], cli.io);
  return { code, out: cli.out(), err: cli.err() };
}

/** Every derived file of a release (not a copied run file, not the packed code), path -> bytes. */
function derivedFiles(releaseDir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else {
        const name = relative(releaseDir, path).split('\\').join('/');
        const derivedRunFile = name.startsWith('chis/') || name === 'blocks.json';
        if (name.startsWith('code/') || name === 'SHA256SUMS') continue;
        if (isPublishedRunFile(name) && !derivedRunFile) continue;
        files.set(name, readFileSync(path));
      }
    }
  };
  walk(releaseDir);
  return files;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'chi-shards-'));
  const runs = [runCliProcess(['pilot', ...PLAN, '--out', join(root, 'whole')])];
  for (const count of [1, 2, 3])
    for (let index = 1; index <= count; index++)
      runs.push(
        runCliProcess([
          'pilot',
          ...PLAN,
          '--shard',
          `${index}/${count}`,
          '--out',
          shardDir(count, index),
        ]),
      );
  const results = await Promise.all(runs);
  for (const result of results) expect(result.code, result.stderr).toBe(0);
}, 1_200_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('chi pilot --shard i/n merged by chi merge', () => {
  it('1, 2 and 3 shards give the unsharded run derived files byte for byte', async () => {
    const expected = derivedFiles(join(root, 'whole', 'release'));
    expect(expected.has('chart-data/chart-data.json')).toBe(true);
    expect([...expected.keys()].some((name) => name.startsWith('chis/'))).toBe(true);
    for (const count of [1, 2, 3]) {
      const dirs = Array.from({ length: count }, (_, i) => shardDir(count, i + 1));
      const out = join(root, `merged-${count}`);
      const merged = await merge([...dirs].reverse(), out);
      expect(merged.code, merged.err).toBe(0);
      expect(merged.out.trim().split('\n').at(-1)).toBe(join(out, 'release'));
      const actual = derivedFiles(join(out, 'release'));
      expect([...actual.keys()].sort(), `${count} shard(s)`).toEqual([...expected.keys()].sort());
      for (const [name, bytes] of expected)
        expect(actual.get(name)?.equals(bytes), `${count} shard(s): ${name}`).toBe(true);
      // the merged manifest is the unsharded run's, byte for byte
      expect(readFileSync(join(out, 'manifest.json'), 'utf8')).toBe(
        readFileSync(join(root, 'whole', 'manifest.json'), 'utf8'),
      );
    }
  }, 600_000);

  it('each shard reserves its preregistered share; the shares never exceed the ceiling', () => {
    for (const count of [1, 2, 3]) {
      const shares = Array.from({ length: count }, (_, i) => {
        const manifest = JSON.parse(
          readFileSync(join(shardDir(count, i + 1), 'manifest.json'), 'utf8'),
        ) as { ceilingUsd: number; shard: { index: number; count: number; ceilingUsd: number } };
        expect(manifest.shard.index).toBe(i + 1);
        // the shard's status reports spend against its share, not against the whole ceiling
        const status = JSON.parse(
          readFileSync(join(shardDir(count, i + 1), 'status.json'), 'utf8'),
        ) as { spend: { ceilingUsd: number } };
        expect(status.spend.ceilingUsd).toBe(manifest.shard.ceilingUsd);
        return { total: manifest.ceilingUsd, share: manifest.shard.ceilingUsd };
      });
      const sumMicros = shares.reduce((sum, s) => sum + Math.round(s.share * 1e6), 0);
      expect(sumMicros / 1e6).toBeLessThanOrEqual(shares[0]?.total ?? 0);
    }
  });

  it('the merged release verifies from a copy', async () => {
    const copy = join(root, 'copy-of-merged-2');
    cpSync(join(root, 'merged-2', 'release'), copy, { recursive: true });
    const cli = captureIo({ cwd: root });
    expect(await runCli(['verify', copy], cli.io), cli.err()).toBe(0);
    expect(cli.out()).toMatch(/^OK: /);
  }, 300_000);

  it('refuses a missing, a duplicated and a foreign shard, naming it (exit 2)', async () => {
    const missing = await merge([shardDir(3, 1), shardDir(3, 3)], join(root, 'refused-1'));
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/shard 2\/3 missing: given .*shard-1 \(1\/3\), .*shard-3 \(3\/3\)/);
    const twice = await merge(
      [shardDir(2, 1), shardDir(2, 2), shardDir(2, 1)],
      join(root, 'refused-2'),
    );
    expect(twice.code).toBe(2);
    expect(twice.err).toContain(
      `shard 1/2 is given twice: ${shardDir(2, 1)} and ${shardDir(2, 1)}`,
    );
    const foreign = await merge([shardDir(2, 1), shardDir(3, 2)], join(root, 'refused-3'));
    expect(foreign.code).toBe(2);
    expect(foreign.err).toContain(`${shardDir(3, 2)} is a shard of another run`);
    // another manifest (another seed) with the same count
    const other = join(root, 'other-seed');
    const created = captureIo({ cwd: root, env: CLOCK });
    const otherArgs = PLAN.map((arg) => (arg === '4242' ? '4243' : arg));
    expect(
      await runCli(['pilot', ...otherArgs, '--shard', '2/2', '--out', other], created.io),
      created.err(),
    ).toBe(0);
    const seed = await merge([shardDir(2, 1), other], join(root, 'refused-4'));
    expect(seed.code).toBe(2);
    expect(seed.err).toContain(`${other} is a shard of another run`);
    const notShard = await merge([join(root, 'whole')], join(root, 'refused-5'));
    expect(notShard.code).toBe(2);
    expect(notShard.err).toContain(`${join(root, 'whole')} is not a shard`);
  }, 600_000);
});
