import { spawnSync } from 'node:child_process';
import { cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { AnyExperimentScorer } from '@chi/experiment';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeArgsFor } from '../../../../tooling/vitest/child-bundle';
import { compareFile } from '../__fixtures__/compare-file-oracle';
import { buildFixtureRun } from '../__fixtures__/fixture-run';
import { tempDir } from '../__fixtures__/temp-dir';
import { canonicalJson } from '../canonical-json';
import { BUILT_IN_SCORERS } from '../experiment-scorers/scorer-registry';
import { writeSha256Sums } from '../release/sha256-sums';
import { writeRelease } from '../release/write-release';
import { runVerifyCli } from './verify-cli';
import { diffJson, verifyRelease } from './verify-release';

describe('verifyRelease', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let pristine: string;
  let copies = 0;
  async function copy(): Promise<string> {
    const target = join(dir.path, `copy-${copies++}`);
    await cp(pristine, target, { recursive: true });
    return target;
  }
  async function edit(
    release: string,
    file: string,
    change: (text: string) => string,
  ): Promise<void> {
    const path = join(release, file);
    const before = await readFile(path, 'utf8');
    const after = change(before);
    expect(after, `the edit of ${file} must change it`).not.toBe(before);
    await writeFile(path, after);
  }

  beforeAll(async () => {
    dir = await tempDir('verify');
    await buildFixtureRun(join(dir.path, 'run'), { seeds: [11, 12] });
    pristine = join(dir.path, 'release');
    await writeRelease({ runDir: join(dir.path, 'run'), outDir: pristine });
  });
  afterAll(async () => dir.remove());

  it('passes a fresh release: every hash and every recomputed number match', async () => {
    const report = await verifyRelease(pristine);
    expect(report.mismatches).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.recomputedFiles).toBeGreaterThan(40);
  });

  it('names the response file when one response is changed, and the scores it changes', async () => {
    const release = await copy();
    // the keeper's memory probe reply: change the value of its first answered probe
    await edit(release, 'attempts.jsonl', (text) => {
      const lines = text.split('\n');
      const index = lines.findIndex(
        (l) =>
          l.includes('"phase":"after_response"') &&
          l.includes('"requestId":"keeper.memory.w11.n8.probe.b0"'),
      );
      const attempt = JSON.parse(lines[index] as string);
      const answers = JSON.parse(attempt.result.text) as { value: string | null }[];
      const answered = answers.find((a) => a.value !== null) as { value: string };
      answered.value = answered.value === '00000000' ? '11111111' : '00000000';
      attempt.result.text = JSON.stringify(answers);
      lines[index] = JSON.stringify(attempt);
      return lines.join('\n');
    });
    const report = await verifyRelease(release);
    expect(report.ok).toBe(false);
    const files = new Set(report.mismatches.map((m) => m.file));
    expect(files.has('attempts.jsonl')).toBe(true);
    expect(files.has('scores/memory.jsonl')).toBe(true);
    expect(files.has('chart-data/chart-data.json')).toBe(true);
    // even with SHA256SUMS rewritten to match, the recomputation still names the scores
    await writeSha256Sums(release);
    const rehashed = await verifyRelease(release);
    expect(rehashed.mismatches.some((m) => m.file === 'attempts.jsonl')).toBe(false);
    const score = rehashed.mismatches.find((m) => m.file === 'scores/memory.jsonl');
    expect(score?.kind).toBe('value');
    expect(score?.message).toMatch(/^scores\/memory\.jsonl at line \d+\.score\./);
  });

  it('names the file and the value when one score is changed', async () => {
    const release = await copy();
    await edit(release, 'scores/memory.jsonl', (text) =>
      text.replace('"qualityScore":1,', '"qualityScore":0.5,'),
    );
    await writeSha256Sums(release);
    const report = await verifyRelease(release);
    expect(report.mismatches).toHaveLength(1);
    expect(report.mismatches[0]).toMatchObject({
      file: 'scores/memory.jsonl',
      kind: 'value',
      recorded: '0.5',
      recomputed: '1',
    });
    expect(report.mismatches[0]?.at).toMatch(/^line \d+\.score\.qualityScore$/);
  });

  it('names the file whose hash was changed in SHA256SUMS', async () => {
    const release = await copy();
    await edit(release, 'SHA256SUMS', (text) => {
      const line = text.split('\n').find((l) => l.endsWith('  report.md')) as string;
      return text.replace(line, `${'0'.repeat(64)}  report.md`);
    });
    const report = await verifyRelease(release);
    expect(report.mismatches).toHaveLength(1);
    expect(report.mismatches[0]).toMatchObject({ file: 'report.md', kind: 'hash' });
  });

  it('names a changed number in the report and in a CSV, and an added file', async () => {
    const release = await copy();
    await edit(release, 'report.md', (text) =>
      text.replace('| 1.000 \\[1.000, 1.000\\] |', '| 0.999 \\[1.000, 1.000\\] |'),
    );
    await edit(release, 'chart-data/memory-capacity.csv', (text) =>
      text.replace(/,1,1,1,/, ',0.9,1,1,'),
    );
    await writeFile(join(release, 'chart-data', 'extra.json'), '{}');
    await writeSha256Sums(release);
    const report = await verifyRelease(release);
    const byFile = Object.fromEntries(report.mismatches.map((m) => [m.file, m]));
    expect(byFile['report.md']?.message).toMatch(
      /^report\.md at line \d+: line \d+ differs: recorded ".*0\.999 /,
    );
    expect(byFile['chart-data/memory-capacity.csv']?.at).toMatch(/^row \d+, column estimate$/);
    expect(byFile['chart-data/extra.json']?.kind).toBe('unexpected');
  });

  it('names a world whose answer key no longer follows from its records', async () => {
    const release = await copy();
    await edit(release, 'worlds/memory/w11-n8.json', (text) => {
      const world = JSON.parse(text);
      const entry = world.answerKey.find(
        (e: { expectedValue: string | null }) => e.expectedValue !== null,
      );
      entry.expectedValue = entry.expectedValue === '00000000' ? '11111111' : '00000000';
      return canonicalJson(world);
    });
    await writeSha256Sums(release);
    const report = await verifyRelease(release);
    expect(report.ok).toBe(false);
    expect(report.mismatches.map((m) => [m.file, m.kind])).toContainEqual([
      'worlds/memory/w11-n8.json',
      'raw',
    ]);
    expect(report.mismatches.find((m) => m.file === 'worlds/memory/w11-n8.json')?.message).toMatch(
      /cannot score block (memory|controls)\.w11\.n8/,
    );
  });

  it('says when the release was written by another version of the report package', async () => {
    const release = await copy();
    await edit(release, 'release.json', (text) =>
      text.replace(/"@chi\/report":"[^"]+"/, '"@chi/report":"9.9.9"'),
    );
    await writeSha256Sums(release);
    const report = await verifyRelease(release);
    expect(report.versionNote).toMatch(/written by @chi\/report 9\.9\.9/);
    expect(report.mismatches).toEqual([
      expect.objectContaining({
        file: 'release.json',
        at: 'toolkit.@chi/report',
        recorded: '"9.9.9"',
      }),
    ]);
    expect((await verifyRelease(pristine)).versionNote).toBeNull();
  });

  it('reports a derived file that is there but cannot be read with its error, not as missing', async () => {
    const release = await copy();
    await rm(join(release, 'scores', 'history.jsonl'));
    await mkdir(join(release, 'scores', 'history.jsonl'));
    const report = await verifyRelease(release);
    // SHA256SUMS names it too (`hash`: listed but not present as a file); the comparison says why.
    const found = report.mismatches.filter(
      (m) => m.file === 'scores/history.jsonl' && m.kind !== 'hash',
    );
    expect(found).toHaveLength(1);
    expect(found[0]?.kind).toBe('value');
    expect(found[0]?.message).toMatch(
      /^scores\/history\.jsonl: cannot be compared with the recomputation: .*EISDIR/,
    );
    expect(report.ok).toBe(false);
  });

  it('names a missing derived file, and truncated ones exactly as the whole-text comparison does', async () => {
    const release = await copy();
    await rm(join(release, 'scores', 'history.jsonl'));
    const truncated = ['traces/keeper/memory-n8.jsonl', 'usage.csv', 'report.md'];
    for (const file of truncated)
      await edit(release, file, (text) => text.slice(0, Math.floor(text.length * 0.6)));
    await writeSha256Sums(release);
    const report = await verifyRelease(release);
    expect(report.mismatches.filter((m) => m.file === 'scores/history.jsonl')).toEqual([
      {
        file: 'scores/history.jsonl',
        kind: 'missing',
        at: null,
        recorded: null,
        recomputed: null,
        message:
          'scores/history.jsonl: the recomputation produces this file but the release lacks it',
      },
    ]);
    for (const file of truncated) {
      const expected = compareFile(
        file,
        await readFile(join(release, file), 'utf8'),
        await readFile(join(pristine, file), 'utf8'),
      );
      expect(expected.length, file).toBeGreaterThan(0);
      expect(report.mismatches.filter((m) => m.file === file)).toEqual(expected);
    }
    expect(new Set(report.mismatches.map((m) => m.file))).toEqual(
      new Set(['scores/history.jsonl', ...truncated]),
    );
  });

  it('recomputes into a temporary folder it removes, also when the recomputation fails', async () => {
    const failing: AnyExperimentScorer = {
      ...(BUILT_IN_SCORERS.find(
        (s) => s.experimentId === 'goal-persistence',
      ) as AnyExperimentScorer),
      experimentId: 'x-failing',
      parametersOf: () => {
        throw new Error('the scorer failed');
      },
    };
    const report = await verifyRelease(pristine, { scorers: [...BUILT_IN_SCORERS, failing] });
    expect(report.ok).toBe(false);
    expect(report.mismatches.map((m) => m.message)).toEqual([
      'recomputation failed: the scorer failed',
    ]);
    expect((await readdir(tmpdir())).filter((name) => name.startsWith('chi-verify-'))).toEqual([]);
  });

  it('removes its temporary folder when the process exits in the middle of the recomputation', async () => {
    const childTmp = join(dir.path, 'child-tmp');
    await mkdir(childTmp);
    const fixture = join(import.meta.dirname, '..', '__fixtures__/verify-then-exit.ts');
    const child = spawnSync(process.execPath, [...(await nodeArgsFor(fixture)), pristine], {
      cwd: dirname(dirname(import.meta.dirname)),
      env: { ...process.env, TMPDIR: childTmp },
      encoding: 'utf8',
    });
    expect(child.status, child.stderr).toBe(7);
    // the recomputation was under way in its folder, and the folder went with the process
    expect(JSON.parse(child.stdout)).toEqual([expect.stringMatching(/^chi-verify-/)]);
    expect((await readdir(childTmp)).filter((name) => name.startsWith('chi-verify-'))).toEqual([]);
  });

  it('names an inconsistent request hash even when SHA256SUMS is rewritten', async () => {
    const release = await copy();
    await edit(release, 'requests/keeper.memory.w11.n8.probe.b0.json', (text) =>
      text.replace('Answer.', 'Answer!'),
    );
    await writeSha256Sums(release);
    const report = await verifyRelease(release);
    expect(report.mismatches.map((m) => [m.file, m.kind])).toContainEqual([
      'requests/keeper.memory.w11.n8.probe.b0.json',
      'raw',
    ]);
  });
});

describe('verifyRelease of a run with holes in different cells', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let release: string;
  beforeAll(async () => {
    dir = await tempDir('verify-holes');
    // world 12 is incomplete at N=16 and world 13 at N=8: the curves rest on world 11 alone
    await buildFixtureRun(join(dir.path, 'run'), {
      seeds: [11, 12, 13],
      infrastructureFailures: ['keeper.memory.w12.n16.probe.b0', 'keeper.memory.w13.n8.probe.b0'],
    });
    release = join(dir.path, 'release');
    await writeRelease({ runDir: join(dir.path, 'run'), outDir: release });
  });
  afterAll(async () => dir.remove());

  it('recomputes the world sets: the release verifies and publishes them', async () => {
    const report = await verifyRelease(release);
    expect(report.mismatches).toEqual([]);
    const data = JSON.parse(await readFile(join(release, 'chart-data', 'chart-data.json'), 'utf8'));
    const notebook = data.memory.filter((p: { condition: string }) => p.condition === 'notebook');
    for (const p of notebook) {
      expect(p.worldSeeds).toEqual([11]);
      expect(p.qualityScore).toMatchObject({ worlds: 1, completeWorlds: 2, plannedWorlds: 3 });
    }
    for (const e of data.eimc) expect(e.worldSeeds).toEqual([11]);
    // the per-world table marks the rows that enter the curve (complete but unused: world 12 at N=8)
    const perWorld = await readFile(join(release, 'chart-data', 'per-world-memory.csv'), 'utf8');
    expect(perWorld.split('\n')[0]).toMatch(
      /^systemId,condition,load,worldSeed,blockComplete,inWorldSet,/,
    );
    expect(perWorld).toContain('\nkeeper,notebook,8,11,true,true,');
    expect(perWorld).toContain('\nkeeper,notebook,8,12,true,false,');
    expect(perWorld).toContain('\nkeeper,notebook,16,12,false,false,');
    expect(perWorld).toContain('\nkeeper,blank,8,12,true,true,');
  });

  it('names a world set changed in the chart data and in a figure CSV', async () => {
    const copy = join(dir.path, 'tampered');
    await cp(release, copy, { recursive: true });
    const jsonPath = join(copy, 'chart-data', 'chart-data.json');
    const data = JSON.parse(await readFile(jsonPath, 'utf8'));
    const index = data.memory.findIndex((p: { condition: string }) => p.condition === 'notebook');
    data.memory[index].worldSeeds = [11, 12];
    data.memory[index].qualityScore.worlds = 2;
    await writeFile(jsonPath, canonicalJson(data));
    const csvPath = join(copy, 'chart-data', 'memory-capacity.csv');
    const csv = await readFile(csvPath, 'utf8');
    await writeFile(csvPath, csv.replace(/,11\n/, ',11 12\n'));
    await writeSha256Sums(copy);
    const report = await verifyRelease(copy);
    const at = report.mismatches.map((m) => `${m.file} ${m.at}`);
    expect(at).toContain(`chart-data/chart-data.json memory[${index}].worldSeeds[1]`);
    expect(at).toContain(`chart-data/chart-data.json memory[${index}].qualityScore.worlds`);
    expect(report.mismatches.some((m) => m.file === 'chart-data/memory-capacity.csv')).toBe(true);
  });
});

describe('runVerifyCli', () => {
  let dir: { path: string; remove: () => Promise<void> };
  beforeAll(async () => {
    dir = await tempDir('verify-cli');
    await buildFixtureRun(join(dir.path, 'run'), { seeds: [11] });
    await writeRelease({ runDir: join(dir.path, 'run'), outDir: join(dir.path, 'release') });
  });
  afterAll(async () => dir.remove());

  function capture() {
    const out: string[] = [];
    const err: string[] = [];
    return {
      io: { stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t) },
      out,
      err,
    };
  }

  it('exits 0 and prints one OK line for an intact release', async () => {
    const c = capture();
    expect(await runVerifyCli([join(dir.path, 'release')], c.io)).toBe(0);
    expect(c.out.join('')).toMatch(
      /^OK: \d+ files match SHA256SUMS; \d+ derived files recomputed from the raw responses match exactly\.\n$/,
    );
    expect(c.err).toEqual([]);
  });

  it('exits 1 and prints every mismatch with its file', async () => {
    const release = join(dir.path, 'release');
    const path = join(release, 'chart-data', 'chart-data.json');
    const original = await readFile(path, 'utf8');
    await writeFile(path, original.replace('"estimate":1,', '"estimate":0.25,'));
    const c = capture();
    expect(await runVerifyCli([release], c.io)).toBe(1);
    const text = c.err.join('');
    expect(text).toContain('MISMATCH chart-data/chart-data.json: SHA-256 is');
    expect(text).toMatch(
      /MISMATCH chart-data\/chart-data\.json at \S+\.estimate: recorded 0\.25, recomputed 1/,
    );
    expect(text).toMatch(
      /FAILED: 2 mismatch\(es\) in 1 file\(s\): chart-data\/chart-data\.json\n$/,
    );
    await writeFile(path, original);
  });

  it('exits 2 on usage errors', async () => {
    const c = capture();
    expect(await runVerifyCli([], c.io)).toBe(2);
    expect(await runVerifyCli([join(dir.path, 'nope')], c.io)).toBe(2);
    expect(await runVerifyCli([join(dir.path, 'release'), '--fast'], c.io)).toBe(2);
    expect(c.err.join('')).toContain('usage: chi verify RELEASE_DIR [--json]');
  });

  it('prints a machine-readable report with --json', async () => {
    const c = capture();
    expect(await runVerifyCli([join(dir.path, 'release'), '--json'], c.io)).toBe(0);
    expect(JSON.parse(c.out.join(''))).toMatchObject({ ok: true, mismatches: [] });
  });
});

describe('diffJson', () => {
  it('reports each differing leaf with its path', () => {
    expect(diffJson({ a: [1, { b: 2 }], c: null }, { a: [1, { b: 3 }], c: null, d: true })).toEqual(
      [
        { at: 'a[1].b', recorded: '2', recomputed: '3' },
        { at: 'd', recorded: '(absent)', recomputed: 'true' },
      ],
    );
  });
});
