import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AnyExperimentScorer } from '@chi/experiment';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixtureRun } from '../__fixtures__/fixture-run';
import { tempDir } from '../__fixtures__/temp-dir';
import { canonicalJson, sha256Hex } from '../canonical-json';
import { BUILT_IN_SCORERS } from '../experiment-scorers/scorer-registry';
import { REPORT_VERSION } from '../report-version';
import { listTreeFiles } from './sha256-sums';
import { SecretLeakError, writeRelease } from './write-release';

const GOLDEN = join(import.meta.dirname, '..', '__fixtures__', 'golden', 'fixture-release.sha256');

describe('writeRelease', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let runDir: string;
  beforeAll(async () => {
    dir = await tempDir('release');
    runDir = join(dir.path, 'run');
    await buildFixtureRun(runDir, {
      infrastructureFailures: ['forgetful.memory.w12.n16.probe.b0'],
      timeouts: ['keeper.behavior.w13.half2'],
    });
  });
  afterAll(async () => dir.remove());
  /**
   * The release of the fixture run, written once, on first use, into `a`: the tests that only
   * read a release share it (writing one renders every figure).
   */
  let written: Promise<{ outDir: string; summary: { files: readonly string[] } }> | undefined;
  const sharedRelease = () => {
    const outDir = join(dir.path, 'a');
    written ??= writeRelease({ runDir, outDir }).then((summary) => ({ outDir, summary }));
    return written;
  };

  it('writes every part of the release the issue lists, checkable by sha256sum -c', async () => {
    const { outDir, summary } = await sharedRelease();
    const { files } = await listTreeFiles(outDir);
    expect([...files, 'SHA256SUMS'].sort()).toEqual([...summary.files].sort());
    for (const expected of [
      'manifest.json',
      'manifest.sha256',
      'release.json',
      'parameters/scoring.json',
      'parameters/analysis.json',
      'prompts/memory-probe@1.txt',
      'worlds/memory/w11-n8.json',
      'requests/keeper.memory.w11.n8.probe.b0.json',
      'attempts.jsonl',
      'usage.csv',
      'notebooks/keeper/memory/w11-n8.json',
      'failures.jsonl',
      'scores/memory.jsonl',
      'traces/keeper/memory-n8.jsonl',
      'traces/keeper/memory-n8-blank.jsonl',
      'traces/forgetful/history.jsonl',
      'chart-data/chart-data.json',
      'chart-data/memory-capacity.csv',
      'chart-data/failure-taxonomy.json',
      'chart-data/case-examples.json',
      'chart-data/per-world-memory.csv',
      'chart-data/per-world-history.csv',
      'chart-data/per-world-behavior.csv',
      'figures/memory-capacity.svg',
      'figures/failure-taxonomy.svg',
      'report.md',
      'report.html',
      'README.md',
    ]) {
      expect(summary.files, expected).toContain(expected);
    }
    const out = execFileSync('sha256sum', ['-c', '--quiet', 'SHA256SUMS'], {
      cwd: outDir,
      encoding: 'utf8',
    });
    expect(out).toBe('');
    const release = JSON.parse(await readFile(join(outDir, 'release.json'), 'utf8'));
    expect(release).toMatchObject({
      evidenceBanner: 'Scripted baseline — not a measurement of any model',
      toolkit: { '@chi/report': REPORT_VERSION },
      worldSeeds: [11, 12, 13],
    });
  });

  it('writes byte-identical releases from the same run', async () => {
    const first = join(dir.path, 'twice-1');
    const second = join(dir.path, 'twice-2');
    await writeRelease({ runDir, outDir: first });
    await writeRelease({ runDir, outDir: second });
    const sums = await readFile(join(first, 'SHA256SUMS'), 'utf8');
    expect(await readFile(join(second, 'SHA256SUMS'), 'utf8')).toBe(sums);
    const { files } = await listTreeFiles(first);
    for (const file of files)
      expect(await readFile(join(second, file)), file).toEqual(await readFile(join(first, file)));
    // and again in place
    await writeRelease({ runDir, outDir: first, overwrite: true });
    expect(await readFile(join(first, 'SHA256SUMS'), 'utf8')).toBe(sums);
  });

  it('matches the golden chart data of the fixed offline fixture', async () => {
    const { outDir } = await sharedRelease();
    const chartData = await readFile(join(outDir, 'chart-data', 'chart-data.json'));
    const actual = `${sha256Hex(chartData)}  chart-data/chart-data.json\n`;
    if (process.env.UPDATE_GOLDEN === '1') {
      await mkdir(join(GOLDEN, '..'), { recursive: true });
      await writeFile(GOLDEN, actual);
    }
    expect(actual).toBe(await readFile(GOLDEN, 'utf8'));
  });

  it('refuses a non-empty folder that is not a release, and an existing release without overwrite', async () => {
    const other = join(dir.path, 'not-a-release');
    await mkdir(other, { recursive: true });
    await writeFile(join(other, 'keep.txt'), 'mine');
    await expect(writeRelease({ runDir, outDir: other, overwrite: true })).rejects.toThrow(
      /holds no SHA256SUMS and files a release does not write \(keep\.txt\), so it is not a release/,
    );
    expect(await readFile(join(other, 'keep.txt'), 'utf8')).toBe('mine');
    const existing = (await sharedRelease()).outDir;
    await expect(writeRelease({ runDir, outDir: existing })).rejects.toThrow(
      /expected an empty or absent folder/,
    );
  });

  it('recovers from a writer killed mid-way: a partial release and stale staging folders are replaced', async () => {
    const clean = (await sharedRelease()).outDir;
    const cleanSums = await readFile(join(clean, 'SHA256SUMS'), 'utf8');
    // What a killed writer leaves: part of the files and no SHA256SUMS (the writer before this
    // change wrote in place), and staging folders beside it (this writer, killed before renaming).
    const partial = join(dir.path, 'partial', 'release');
    await mkdir(join(partial, 'scores'), { recursive: true });
    await writeFile(
      join(partial, 'manifest.json'),
      (await readFile(join(clean, 'manifest.json'), 'utf8')).slice(0, 40),
    );
    await writeFile(join(partial, 'release.json'), '{');
    await mkdir(join(dir.path, 'partial', '.release.partial-0badc0de', 'scores'), {
      recursive: true,
    });
    await mkdir(join(dir.path, 'partial', '.release.replaced-0badc0de'), { recursive: true });
    await writeRelease({ runDir, outDir: partial, overwrite: true });
    expect(await readFile(join(partial, 'SHA256SUMS'), 'utf8')).toBe(cleanSums);
    expect((await readdir(join(dir.path, 'partial'))).sort()).toEqual(['release']);
    // replacing a complete release leaves the same bytes and no staging folder either
    await writeRelease({ runDir, outDir: partial, overwrite: true });
    expect(await readFile(join(partial, 'SHA256SUMS'), 'utf8')).toBe(cleanSums);
    expect(await readdir(join(dir.path, 'partial'))).toEqual(['release']);
  });

  it('writes the derived files into the staging folder as they are produced, and removes it when producing them fails', async () => {
    const parent = join(dir.path, 'failing');
    const outDir = join(parent, 'release');
    // a module scorer runs after the run is scored: the trace files must be on disk by then
    let staged: string[] = [];
    const failing: AnyExperimentScorer = {
      ...(BUILT_IN_SCORERS.find(
        (s) => s.experimentId === 'goal-persistence',
      ) as AnyExperimentScorer),
      experimentId: 'x-failing',
      parametersOf: () => {
        const staging = readdirSync(parent).filter((name) => name.startsWith('.release.partial-'));
        staged = staging.flatMap((name) =>
          readdirSync(join(parent, name, 'traces', 'keeper')).map((file) => `${name}/${file}`),
        );
        throw new Error('the scorer failed');
      },
    };
    const error = await writeRelease({
      runDir,
      outDir,
      scorers: [...BUILT_IN_SCORERS, failing],
    }).catch((e: unknown) => e);
    expect((error as Error).message).toBe('the scorer failed');
    expect(staged).toContainEqual(
      expect.stringMatching(/^\.release\.partial-[0-9a-f]{8}\/memory-n8\.jsonl$/),
    );
    expect(await readdir(parent)).toEqual([]);
  });

  it('refuses to publish a planted API key, an authorization header or reasoning text', async () => {
    const leaky = join(dir.path, 'leaky-run');
    await buildFixtureRun(leaky, {
      seeds: [11],
      plantInResponses: 'Authorization: Bearer sk-or-v1-0123456789abcdef',
    });
    const outDir = join(dir.path, 'leaky-release');
    const error = await writeRelease({ runDir: leaky, outDir }).catch((e: unknown) => e);
    expect(SecretLeakError.isInstance(error)).toBe(true);
    const findings = (error as SecretLeakError).findings;
    expect(findings.map((f) => f.path)).toContain('attempts.jsonl');
    expect(findings.map((f) => f.what)).toEqual(
      expect.arrayContaining(['a bearer token', 'an OpenRouter API key (sk-or-v1-...)']),
    );
    expect((error as Error).message).not.toContain('0123456789abcdef');
    // nothing was written: no release, and no staging folder holding the files scanned so far
    await expect(readFile(join(outDir, 'SHA256SUMS'))).rejects.toThrow();
    expect((await readdir(dir.path)).filter((name) => name.includes('.partial-'))).toEqual([]);
    const secret = join(dir.path, 'secret-run');
    await buildFixtureRun(secret, { seeds: [11], plantInResponses: 'my-private-test-key-123' });
    await expect(
      writeRelease({
        runDir: secret,
        outDir: join(dir.path, 'secret-release'),
        forbiddenStrings: ['my-private-test-key-123'],
      }),
    ).rejects.toThrow(/attempts\.jsonl: forbidden string #1/);
  });
});

describe('REPORT_VERSION', () => {
  it('equals package.json', async () => {
    const pkg = JSON.parse(
      await readFile(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8'),
    );
    expect(REPORT_VERSION).toBe(pkg.version);
  });
});

describe('writeRelease of JSONL run files', () => {
  let dir: { path: string; remove: () => Promise<void> };
  beforeAll(async () => {
    dir = await tempDir('release-jsonl');
  });
  afterAll(async () => dir.remove());

  it('publishes each line as canonical JSON and drops a torn last line, streamed', async () => {
    const runDir = join(dir.path, 'run');
    await buildFixtureRun(runDir, {
      infrastructureFailures: ['forgetful.memory.w12.n16.probe.b0'],
    });
    const failures = await readFile(join(runDir, 'failures.jsonl'), 'utf8');
    const lines = failures.split('\n').filter((line) => line !== '');
    expect(lines.length).toBeGreaterThan(0);
    // spaced JSON and a torn append (no newline) that a crash left
    const spaced = lines.map((line) =>
      JSON.stringify(JSON.parse(line), null, 1).replace(/\n/g, ''),
    );
    await writeFile(join(runDir, 'failures.jsonl'), `${spaced.join('\n')}\n{"requestId":"kee`);
    await writeRelease({ runDir, outDir: join(dir.path, 'out') });
    const published = await readFile(join(dir.path, 'out', 'failures.jsonl'), 'utf8');
    expect(published).toBe(lines.map((line) => `${canonicalJson(JSON.parse(line))}\n`).join(''));
  });

  it('refuses a line that is not JSON before the last, naming the file and line (nothing published)', async () => {
    const runDir = join(dir.path, 'run2');
    await buildFixtureRun(runDir, {
      infrastructureFailures: ['forgetful.memory.w12.n16.probe.b0'],
    });
    const failures = await readFile(join(runDir, 'failures.jsonl'), 'utf8');
    await writeFile(join(runDir, 'failures.jsonl'), `not json\n${failures}`);
    await expect(writeRelease({ runDir, outDir: join(dir.path, 'out2') })).rejects.toThrow(
      /line 1 of failures\.jsonl|failures\.jsonl line 1/,
    );
  });
});
