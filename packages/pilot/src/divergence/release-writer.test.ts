import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { writeSha256Sums } from '@chi/report';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { captureIo } from '../__fixtures__/cli-io';
import { chiAtFailpoint } from '../__fixtures__/failpoint-cli';
import { sharedDivergenceRun } from '../__fixtures__/shared-divergence-run';
import { runCli } from '../cli/cli-main';
import { writeDivergenceRelease } from './release';
import { recomputeDivergence } from './run';

/**
 * The divergence release is written by `@chi/report`'s `writeRelease` and checked by its
 * `verifyRelease` (issue 34): what that writer and verifier guarantee for the pilot's release
 * holds for a divergence release too. Each test here failed while divergence had its own writer.
 */

/** Every file under `dir`, relative, sorted. */
function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory() ? filesUnder(dir, `${prefix}${entry.name}/`) : [`${prefix}${entry.name}`],
    )
    .sort();
}

/** The files of `dir` whose bytes hold `text` (gzip files decompressed). */
function filesHolding(dir: string, text: string): string[] {
  return filesUnder(dir).filter((path) => {
    const bytes = readFileSync(join(dir, path));
    const plain = path.endsWith('.gz') ? gunzipSync(bytes) : bytes;
    return plain.toString('utf8').includes(text);
  });
}

let root: string;
let runDir: string;
let published: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'chi-divergence-writer-'));
  // the shared offline run (`--replicates 2 --seed 7 --resamples 20`): only ever copied here
  const shared = await sharedDivergenceRun();
  expect(shared.code).toBe(0);
  runDir = shared.runDir;
  published = shared.release;
});
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(() => {
  vi.unstubAllEnvs();
});

const copyRun = (name: string): string => {
  const target = join(root, name);
  cpSync(runDir, target, { recursive: true });
  return target;
};

const copyRelease = (name: string): string => {
  const target = join(root, name);
  cpSync(published, target, { recursive: true });
  return target;
};

/** Puts `secret` into the first message of one payload of `run` (a request as sent). */
function plantInPayload(run: string, secret: string): string {
  const name = readdirSync(join(run, 'payloads')).sort()[0] as string;
  const path = join(run, 'payloads', name);
  const text = gunzipSync(readFileSync(path)).toString('utf8');
  const planted = text.replace('"content":"', `"content":"${secret} `);
  expect(planted).not.toBe(text);
  writeFileSync(path, gzipSync(Buffer.from(planted, 'utf8')));
  return `payloads/${name}`;
}

describe('the divergence release writer', () => {
  it('refuses to publish the API key of the environment, and the old release stays', async () => {
    const run = copyRun('run-env-key');
    const key = 'not-a-real-key-but-forbidden-7f3a9c';
    vi.stubEnv('OPENROUTER_API_KEY', key);
    // recomputed first: the recomputation checks every payload against its hash
    const recomputed = await recomputeDivergence(run);
    plantInPayload(run, key);
    const before = readFileSync(join(run, 'release', 'SHA256SUMS'), 'utf8');
    await expect(writeDivergenceRelease(run, recomputed)).rejects.toThrow(/secret/i);
    expect(filesHolding(join(run, 'release'), key)).toEqual([]);
    expect(readFileSync(join(run, 'release', 'SHA256SUMS'), 'utf8')).toBe(before);
  });

  it('refuses to publish a key-shaped string in a payload, naming the file', async () => {
    const run = copyRun('run-key-shape');
    rmSync(join(run, 'release'), { recursive: true });
    const recomputed = await recomputeDivergence(run);
    const planted = plantInPayload(run, 'sk-or-v1-0123456789abcdef0123');
    const written = writeDivergenceRelease(run, recomputed);
    await expect(written).rejects.toThrow(planted);
    // nothing was published, and no half-written folder is left beside the run's files
    expect(existsSync(join(run, 'release'))).toBe(false);
    expect(readdirSync(run).filter((name) => name.startsWith('.release'))).toEqual([]);
  });

  it('replaces an earlier release whole: a file the writer does not write is not kept', async () => {
    const run = copyRun('run-stale');
    writeFileSync(join(run, 'release', 'stale-notes.txt'), 'left from an earlier release\n');
    await writeDivergenceRelease(run, await recomputeDivergence(run));
    expect(existsSync(join(run, 'release', 'stale-notes.txt'))).toBe(false);
    expect(readFileSync(join(run, 'release', 'SHA256SUMS'), 'utf8')).not.toContain('stale-notes');
  });

  it('refuses to replace a release folder that holds files a release does not write', async () => {
    const run = copyRun('run-foreign');
    rmSync(join(run, 'release'), { recursive: true });
    mkdirSync(join(run, 'release'));
    writeFileSync(join(run, 'release', 'my-notes.txt'), 'not a release\n');
    const written = writeDivergenceRelease(run, await recomputeDivergence(run));
    await expect(written).rejects.toThrow(/my-notes\.txt.*not a release/);
    expect(filesUnder(join(run, 'release'))).toEqual(['my-notes.txt']);
  });

  it('killed mid-way through a new release leaves the old release complete in place', async () => {
    const run = copyRun('run-killed');
    const before = filesUnder(join(run, 'release'));
    // `chi pilot --resume` of a complete divergence run publishes its release again
    expect(await chiAtFailpoint(root, ['pilot', '--resume', run], 'release:file:5')).toBe('killed');
    expect(filesUnder(join(run, 'release'))).toEqual(before);
    const cli = captureIo({ cwd: root });
    expect(await runCli(['verify', join(run, 'release')], cli.io)).toBe(0);
    // the next writer removes what the killed one left beside the release
    expect(await runCli(['pilot', '--resume', run], captureIo({ cwd: root }).io)).toBe(0);
    expect(readdirSync(run).filter((name) => name.startsWith('.release'))).toEqual([]);
  }, 120_000);
});

describe('chi verify on a divergence release (the report verifier)', () => {
  it('reports a file SHA256SUMS lists that is neither raw nor recomputed', async () => {
    const release = copyRelease('release-extra');
    writeFileSync(join(release, 'notes.md'), 'added after publishing\n');
    await writeSha256Sums(release);
    const cli = captureIo({ cwd: root });
    expect(await runCli(['verify', release], cli.io)).toBe(1);
    expect(cli.err()).toContain('notes.md: not a raw record and not produced by the recomputation');
  });

  it('checks the hash chain of the attempt log: an edit that moves no number is still caught', async () => {
    const release = copyRelease('release-chain');
    const log = join(release, 'attempts.jsonl');
    const lines = readFileSync(log, 'utf8').split('\n');
    // the size of one request as sent: read by no derived file, covered by the next record's link
    const record = JSON.parse(lines[2] as string) as { inputBytes: number };
    record.inputBytes += 1;
    lines[2] = JSON.stringify(record);
    writeFileSync(log, lines.join('\n'));
    await writeSha256Sums(release);
    const cli = captureIo({ cwd: root });
    expect(await runCli(['verify', release], cli.io)).toBe(1);
    expect(cli.err()).toMatch(
      /MISMATCH attempts\.jsonl: unreadable raw record: .*line 4 does not follow the record before it/,
    );
  });

  it('names the JSON path, the recorded and the recomputed value of an edited number', async () => {
    const release = copyRelease('release-edited');
    const path = join(release, 'divergence.json');
    const analysis = JSON.parse(readFileSync(path, 'utf8')) as {
      systems: { trajectory: { series: { excess: { estimate: number } } }[] }[];
    };
    const point = analysis.systems[0]?.trajectory[1]?.series.excess as { estimate: number };
    const recomputed = point.estimate;
    point.estimate = 0.123456;
    writeFileSync(path, `${JSON.stringify(analysis, null, 2)}\n`);
    await writeSha256Sums(release);
    const cli = captureIo({ cwd: root });
    expect(await runCli(['verify', release, '--json'], cli.io)).toBe(1);
    const report = JSON.parse(cli.out()) as {
      ok: boolean;
      mismatches: {
        file: string;
        kind: string;
        at: string;
        recorded: string;
        recomputed: string;
      }[];
    };
    expect(report.ok).toBe(false);
    expect(report.mismatches).toEqual([
      {
        file: 'divergence.json',
        kind: 'value',
        at: 'systems[0].trajectory[1].series.excess.estimate',
        recorded: '0.123456',
        recomputed: String(recomputed),
        message: expect.stringContaining('divergence.json at systems[0].trajectory[1]'),
      },
    ]);
  });

  it('--json prints the pilot verifier report for an intact divergence release', async () => {
    const cli = captureIo({ cwd: root });
    expect(await runCli(['verify', published, '--json'], cli.io)).toBe(0);
    const report = JSON.parse(cli.out()) as { ok: boolean; recomputedFiles: number };
    expect(report.ok).toBe(true);
    // every derived file: divergence.json, 4 CSVs, 3 figures, report.md/html, README, 3 CHIS logs
    expect(report.recomputedFiles).toBe(14);
  });
});
