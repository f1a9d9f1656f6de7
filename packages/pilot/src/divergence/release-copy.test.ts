import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { writeSha256Sums } from '@chi/report';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureIo } from '../__fixtures__/cli-io';
import { sharedDivergenceRun } from '../__fixtures__/shared-divergence-run';
import { runCli } from '../cli/cli-main';

const run = promisify(execFile);

/** `node code/verify.mjs .` run from inside `dir`; resolves to its exit code and output. */
async function nodeVerify(dir: string): Promise<{ code: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['code/verify.mjs', '.'], { cwd: dir });
    return { code: 0, out: stdout, err: stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, out: failed.stdout ?? '', err: failed.stderr ?? '' };
  }
}

describe('a divergence release meets the release clause and verifies from a copy', () => {
  let runDir: string;
  let published: string;
  let elsewhere: string;

  beforeAll(async () => {
    elsewhere = mkdtempSync(join(tmpdir(), 'chi-divergence-elsewhere-'));
    // the offline run `--replicates 2 --seed 7 --resamples 20`, shared with command.test.ts and
    // view.test.ts: read here, and every change is made on a copy in `elsewhere`
    const shared = await sharedDivergenceRun();
    expect(shared.code).toBe(0);
    runDir = shared.runDir;
    published = shared.release;
  });
  afterAll(() => rmSync(elsewhere, { recursive: true, force: true }));

  const copy = (name: string): string => {
    const target = join(elsewhere, name);
    cpSync(published, target, { recursive: true });
    return target;
  };

  it('carries prompts, payloads, code, the CHIS log, per-world values and task accuracy', () => {
    for (const path of [
      'prompts/history-probe@1.txt',
      'requests.jsonl',
      'code/verify.mjs',
      'code/packages/chi-pilot-0.1.0.tgz',
      'chis/stateless.jsonl',
      'chis/notebook-follower.jsonl',
      'chis/hidden-state.jsonl',
      'divergence-worlds.csv',
      'divergence-accuracy.csv',
      'README.md',
    ])
      expect(existsSync(join(published, path)), path).toBe(true);
    // the run folder holds the same CHIS log (the pilot's layout), not an empty chis/
    expect(readFileSync(join(runDir, 'chis', 'stateless.jsonl'), 'utf8')).toBe(
      readFileSync(join(published, 'chis', 'stateless.jsonl'), 'utf8'),
    );
    const chis = readFileSync(join(published, 'chis', 'notebook-follower.jsonl'), 'utf8')
      .trim()
      .split('\n');
    // 2 worlds x 21 arms x 7 probes, AB, BA, AB2 and BA2 probing twice at checkpoint 1
    expect(chis.length).toBe(2 * (21 * 7 + 4));
    // every number's world list: one row per planned world, in_world_set true where defined
    const worlds = readFileSync(join(published, 'divergence-worlds.csv'), 'utf8').split('\n');
    expect(worlds[0]).toBe('system,statistic,world_seed,value,in_world_set,reason');
    const excess = worlds.filter((row) => row.startsWith('notebook-follower,excess@6,'));
    expect(excess.length).toBe(2);
    expect(excess.every((row) => row.includes(',true,'))).toBe(true);
    // task accuracy beside every dynamic: per arm and checkpoint, in the CSV and the report
    const accuracy = readFileSync(join(published, 'divergence-accuracy.csv'), 'utf8').split('\n');
    // at checkpoint 0 the warranted answer is unknown, which the follower gives
    expect(accuracy).toContain('notebook-follower,scripted_baseline,A,0,1,1,1,2,2,');
    expect(accuracy.filter((row) => row.startsWith('stateless,')).length).toBe(21 * 7);
    const markdown = readFileSync(join(published, 'report.md'), 'utf8');
    expect(markdown).toContain('| arm | checkpoint 0 | checkpoint 1 |');
    expect(readFileSync(join(published, 'README.md'), 'utf8')).toContain('node code/verify.mjs .');
  });

  it('chi verify and node code/verify.mjs . recompute a copy in another directory', async () => {
    const target = copy('intact');
    const cli = captureIo({ cwd: elsewhere });
    expect(await runCli(['verify', target], cli.io)).toBe(0);
    expect(cli.out()).toMatch(/^OK: \d+ files match SHA256SUMS; 14 derived files recomputed/);
    const bundled = await nodeVerify(target);
    expect(bundled.err).toBe('');
    expect(bundled.code).toBe(0);
    // the bundled verifier gives the same report as chi verify
    expect(bundled.out).toBe(cli.out());
  });

  it('catches an edited per-world value even when SHA256SUMS was rewritten to match', async () => {
    const target = copy('edited-world');
    const path = join(target, 'divergence-worlds.csv');
    const rows = readFileSync(path, 'utf8').split('\n');
    const at = rows.findIndex((row) => row.startsWith('notebook-follower,excess@6,'));
    const fields = (rows[at] as string).split(',');
    fields[3] = String(Number(fields[3]) + 0.25);
    rows[at] = fields.join(',');
    writeFileSync(path, rows.join('\n'));
    await writeSha256Sums(target);
    const cli = captureIo({ cwd: elsewhere });
    expect(await runCli(['verify', target], cli.io)).toBe(1);
    // named by row and column, with the recorded and the recomputed value
    expect(cli.err()).toMatch(/MISMATCH divergence-worlds\.csv at row \d+, column value/);
    const bundled = await nodeVerify(target);
    expect(bundled.code).toBe(1);
    expect(bundled.err).toContain('MISMATCH divergence-worlds.csv');
  });

  it('catches an edited CHIS log entry and an edited task accuracy', async () => {
    const target = copy('edited-chis');
    const chis = join(target, 'chis', 'stateless.jsonl');
    writeFileSync(chis, readFileSync(chis, 'utf8').replace('"accuracy":', '"accuracy":0.5,"x":'));
    const accuracy = join(target, 'divergence-accuracy.csv');
    writeFileSync(accuracy, `${readFileSync(accuracy, 'utf8')}extra,row\n`);
    await writeSha256Sums(target);
    const cli = captureIo({ cwd: elsewhere });
    expect(await runCli(['verify', target], cli.io)).toBe(1);
    expect(cli.err()).toContain('MISMATCH chis/stateless.jsonl');
    expect(cli.err()).toContain('MISMATCH divergence-accuracy.csv');
  });
});
