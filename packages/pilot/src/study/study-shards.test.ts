/**
 * Study sessions run as shards in separate processes (`chi study run DIR --shard i/n`, the run's
 * bundle of the CLI's sources like the other process tests: `chiProcess`) and merged with `chi study merge DIR`: the sessions'
 * derived files, states, session records, CHIS entries and the study report equal an unsharded
 * study's byte for byte; a missing or duplicated shard is refused naming it; the shards' shares
 * never exceed the session's ceiling.
 */
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { isPublishedRunFile } from '@chi/run/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNode } from '../../../../tooling/vitest/child-process';
import { chiProcess as spawnChi } from '../__fixtures__/chi-process';
import { captureIo } from '../__fixtures__/cli-io';
import { runCli } from '../cli/cli-main';
import { studyPaths } from './study-folder';

const DAY0 = '2026-09-01T00:00:00.000Z';
const DAY1 = '2026-09-02T00:00:00.000Z';
const INIT = [
  '--study-id',
  'sharded',
  '--systems',
  'perfect,latest-wins',
  '--replicates',
  '2',
  '--delays-days',
  '0,1',
  '--primary-session',
  '1',
  '--session-ceiling-usd',
  '1',
  '--ceiling-usd',
  '3',
];

let root: string;
const whole = () => studyPaths(join(root, 'whole', 'st'));
const sharded = () => studyPaths(join(root, 'sharded', 'st'));

/** `chi ARGS` as its own process under the frozen clock `clock` (tests only; folders absolute). */
const chiProcess = (args: readonly string[], clock: string) =>
  spawnChi(args, { CHI_TEST_CLOCK: clock });

/** `chi ARGS` in process (the cheap steps: init, freeze, merge). */
async function chi(args: readonly string[], clock: string, cwd: string) {
  const captured = captureIo({ cwd, env: { CHI_TEST_CLOCK: clock } });
  const code = await runCli(args, captured.io);
  return { code, out: captured.out(), err: captured.err() };
}

async function ok(result: Promise<{ code: number | null; stderr?: string; err?: string }>) {
  const done = await result;
  expect(done.code, done.stderr ?? done.err).toBe(0);
}

/** Runs shards 1..count of the due session of the sharded study side by side, as processes. */
async function runShards(count: number, clock: string, only?: readonly number[]) {
  const indices = only ?? Array.from({ length: count }, (_, i) => i + 1);
  const results = await Promise.all(
    indices.map((index) =>
      chiProcess(['study', 'run', sharded().dir, '--shard', `${index}/${count}`], clock),
    ),
  );
  for (const result of results) expect(result.code, result.stderr).toBe(0);
  return results;
}

/** Every file of a folder, path -> bytes, without the packed code and the checksums. */
function files(dir: string, keep: (name: string) => boolean = () => true): Map<string, Buffer> {
  const found = new Map<string, Buffer>();
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      const name = relative(dir, path).split('\\').join('/');
      if (entry.isDirectory()) walk(path);
      else if (keep(name)) found.set(name, readFileSync(path));
    }
  };
  walk(dir);
  return found;
}

/** A release's derived files (not a copied run file, not the packed code, not SHA256SUMS). */
const derived = (name: string) =>
  !name.startsWith('code/') &&
  name !== 'SHA256SUMS' &&
  (!isPublishedRunFile(name) || name.startsWith('chis/') || name === 'blocks.json');

let mergeS1Refusals: { missing: string; duplicate: string; unsharded: string };

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'chi-study-shards-'));
  const wholeRoot = join(root, 'whole');
  const shardedRoot = join(root, 'sharded');
  // The unsharded study: s0 on day 0, s1 on day 1.
  await ok(chi(['study', 'init', join(wholeRoot, 'st'), ...INIT], DAY0, root));
  // one request in flight: its attempt log is in plan order, as a merged one is (usage.csv
  // lists the log in its order; the pilot's shard test runs its unsharded run the same way)
  await ok(chiProcess(['study', 'run', whole().dir, '--concurrency', '1'], DAY0));
  await ok(chiProcess(['study', 'run', whole().dir, '--concurrency', '1'], DAY1));
  // The same study sharded: frozen first, s0 in 2 shards, s1 in 3, each shard a process.
  await ok(chi(['study', 'init', join(shardedRoot, 'st'), ...INIT], DAY0, root));
  await ok(chi(['study', 'freeze', 'st'], DAY0, shardedRoot));
  await runShards(2, DAY0);
  await ok(chi(['study', 'merge', 'st'], DAY0, shardedRoot));
  await runShards(3, DAY1, [1, 3]);
  const missing = await chi(['study', 'merge', 'st'], DAY1, shardedRoot);
  const unsharded = await chi(['study', 'run', 'st'], DAY1, shardedRoot);
  await runShards(3, DAY1, [2]);
  const copy = join(sharded().sessions, 's1.shard-2-of-3.copy');
  cpSync(sharded().sessionShardRun(1, { index: 2, count: 3 }), copy, { recursive: true });
  const duplicate = await chi(['study', 'merge', 'st'], DAY1, shardedRoot);
  rmSync(copy, { recursive: true });
  mergeS1Refusals = {
    missing: `${missing.code} ${missing.err}`,
    duplicate: `${duplicate.code} ${duplicate.err}`,
    unsharded: `${unsharded.code} ${unsharded.err}`,
  };
  await ok(chi(['study', 'merge', 'st'], DAY1, shardedRoot));
}, 1_200_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('chi study run --shard i/n merged by chi study merge (separate processes)', () => {
  it('gives every session the unsharded release byte for byte, and the same study files', () => {
    for (const k of [0, 1]) {
      const expected = files(join(whole().sessionRun(k), 'release'), derived);
      expect(expected.has('chart-data/chart-data.json')).toBe(true);
      const actual = files(join(sharded().sessionRun(k), 'release'), derived);
      expect([...actual.keys()].sort(), `s${k}`).toEqual([...expected.keys()].sort());
      for (const [name, bytes] of expected)
        expect(actual.get(name)?.equals(bytes), `s${k}: ${name}`).toBe(true);
      for (const file of [whole().sessionState(k), whole().sessionRecord(k)])
        expect(readFileSync(file.replace(whole().dir, sharded().dir), 'utf8')).toBe(
          readFileSync(file, 'utf8'),
        );
    }
    for (const file of [whole().chis, whole().report, whole().reportMarkdown, whole().manifest])
      expect(readFileSync(file.replace(whole().dir, sharded().dir), 'utf8')).toBe(
        readFileSync(file, 'utf8'),
      );
  });

  it("each shard reserves its preregistered share; the shares never exceed the session's ceiling", () => {
    for (const [k, count] of [
      [0, 2],
      [1, 3],
    ] as const) {
      let micros = 0;
      for (let index = 1; index <= count; index++) {
        const dir = sharded().sessionShardRun(k, { index, count });
        const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
          ceilingUsd: number;
          shard: { ceilingUsd: number };
          study: { ceilingUsd: number };
        };
        expect(manifest.ceilingUsd).toBe(manifest.study.ceilingUsd);
        expect(manifest.study.ceilingUsd).toBe(1);
        expect(manifest.shard.ceilingUsd).toBeGreaterThan(0);
        const status = JSON.parse(readFileSync(join(dir, 'status.json'), 'utf8')) as {
          spend: { ceilingUsd: number };
        };
        expect(status.spend.ceilingUsd).toBe(manifest.shard.ceilingUsd);
        micros += Math.round(manifest.shard.ceilingUsd * 1e6);
      }
      expect(micros / 1e6).toBeLessThanOrEqual(1);
    }
  });

  it('refuses a missing and a duplicated shard naming it, and an unsharded run of a sharded session', () => {
    expect(mergeS1Refusals.missing).toMatch(
      /^2 .*shard 2\/3 missing: given .*s1\.shard-1-of-3 \(1\/3\)/,
    );
    expect(mergeS1Refusals.duplicate).toMatch(
      /^2 .*shard 2\/3 is given twice: .*s1\.shard-2-of-3 and .*s1\.shard-2-of-3\.copy/,
    );
    expect(mergeS1Refusals.unsharded).toMatch(/^2 .*session s1 is sharded .*chi study merge/);
    expect(existsSync(join(sharded().sessionRun(1), 'release'))).toBe(true);
  });
});

/** `node code/verify.mjs .` run from inside `dir` (the verifier the study folder carries). */
async function ownVerifier(dir: string) {
  const { exit, stdout, stderr } = await runNode(['code/verify.mjs', '.'], { cwd: dir });
  return { code: exit, output: stdout + stderr };
}

describe('the study as one recomputable release', () => {
  it('chi verify and node code/verify.mjs . recompute a copy; one edited byte is refused', async () => {
    const copy = join(root, 'copy-of-study');
    cpSync(sharded().dir, copy, { recursive: true });
    const verified = await chi(['verify', copy], DAY1, root);
    expect(verified.code, verified.err).toBe(0);
    expect(verified.out).toMatch(
      /^OK: study; .*2 session release\(s\) verify; study-chis\.jsonl, study-report\.json, study-report\.md recomputed/,
    );
    const own = await ownVerifier(copy);
    expect(own.code, own.output).toBe(0);
    expect(own.output).toMatch(/^OK: study/);
    // one byte of the study report: the recomputation differs
    const report = join(copy, 'study-report.md');
    const text = readFileSync(report, 'utf8');
    writeFileSync(report, text.replace('| s1 |', '| s2 |'));
    const edited = await chi(['verify', copy], DAY1, root);
    expect(edited.code).toBe(1);
    expect(edited.err).toContain('MISMATCH study-report.md: differs from its recomputation');
    expect((await ownVerifier(copy)).code).toBe(1);
    writeFileSync(report, text);
    // one byte of a session's scored release: that session's release names the file
    const scores = join(copy, 'sessions', 's1', 'release', 'scores', 'memory.jsonl');
    const scored = readFileSync(scores, 'utf8');
    writeFileSync(scores, scored.replace('"blockComplete":true', '"blockComplete":false'));
    const rescored = await chi(['verify', copy], DAY1, root);
    expect(rescored.code).toBe(1);
    expect(rescored.err).toContain('sessions/s1/release/scores/memory.jsonl');
    writeFileSync(scores, scored);
    // one byte of a carried state: the chain names it
    const state = join(copy, 'sessions', 's0.state.json');
    const carried = readFileSync(state, 'utf8');
    writeFileSync(state, carried.replace('"sessionIndex":0', '"sessionIndex":1'));
    const chained = await chi(['verify', copy], DAY1, root);
    expect(chained.code).toBe(1);
    expect(chained.err).toContain('s0.state.json');
  }, 600_000);
});
