import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureIo } from '../__fixtures__/cli-io';
import { runCli } from '../cli-main';

describe('chi pilot --protocol divergence-v0.1', () => {
  it('--plan prints the request count and worst-case cost and sends nothing', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'chi-divergence-plan-'));
    const cli = captureIo({ cwd });
    const code = await runCli(
      ['pilot', '--protocol', 'divergence-v0.1', '--plan', '--replicates', '2'],
      cli.io,
    );
    expect(code).toBe(0);
    expect(cli.out()).toContain('requests per world and system: 231');
    // 3 scripted systems x 2 worlds x 231.
    expect(cli.out()).toContain('total requests: 1386');
    expect(cli.out()).toMatch(/one live model over this plan .* worst case \d+\.\d{6} USD/);
    expect(cli.out()).toContain('primary checkpoint 6 (frozen in the manifest)');
  });

  it('refuses an unknown protocol and options that do not apply (exit 2)', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'chi-divergence-bad-'));
    const unknown = captureIo({ cwd });
    expect(await runCli(['pilot', '--protocol', 'divergence-v9', '--plan'], unknown.io)).toBe(2);
    expect(unknown.err()).toContain('expected divergence-v0.1');
    const conflicting = captureIo({ cwd });
    expect(await runCli(['pilot', '--protocol', 'divergence-v0.1', '--live'], conflicting.io)).toBe(
      2,
    );
    expect(conflicting.err()).toContain('remove --live');
  });

  it('runs offline end to end and chi verify recomputes the release', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'chi-divergence-run-'));
    const cli = captureIo({ cwd });
    const argv = ['pilot', '--protocol', 'divergence-v0.1', '--replicates', '2'];
    expect(await runCli([...argv, '--resamples', '50', '--out', 'run'], cli.io)).toBe(0);
    const release = cli.out().trim().split('\n').at(-1) as string;
    expect(release).toBe(join(cwd, 'run', 'release'));
    expect(readFileSync(join(release, 'divergence.md'), 'utf8')).toContain(
      'SCRIPTED BASELINE, not a model',
    );
    const verify = captureIo({ cwd });
    expect(await runCli(['verify', release], verify.io)).toBe(0);
    expect(verify.out()).toContain('OK: divergence release');
    // A second run into the same folder would mix two manifests: refused.
    const again = captureIo({ cwd });
    expect(await runCli([...argv, '--out', 'run'], again.io)).toBe(2);
  }, 60_000);
});

describe('chi verify on a damaged divergence release', () => {
  it('exits 5 naming the file when the manifest was edited or the log truncated', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'chi-divergence-damaged-'));
    const run = captureIo({ cwd });
    const argv = ['pilot', '--protocol', 'divergence-v0.1', '--replicates', '2'];
    expect(await runCli([...argv, '--resamples', '20', '--out', 'run'], run.io)).toBe(0);
    const release = join(cwd, 'run', 'release');
    const manifestPath = join(release, 'manifest.json');
    const original = readFileSync(manifestPath, 'utf8');
    writeFileSync(manifestPath, original.replace('"primaryCheckpoint":6', '"primaryCheckpoint":5'));
    const edited = captureIo({ cwd });
    expect(await runCli(['verify', release], edited.io)).toBe(5);
    expect(edited.err()).toContain('calls.jsonl');
    writeFileSync(manifestPath, original);
    const log = join(release, 'calls.jsonl');
    const lines = readFileSync(log, 'utf8').split('\n');
    writeFileSync(log, lines.slice(0, 10).join('\n'));
    const truncated = captureIo({ cwd });
    expect(await runCli(['verify', release], truncated.io)).toBe(5);
    expect(truncated.err()).toContain('the manifest registers 1386');
  }, 60_000);

  it('writes byte-identical releases for the same manifest timestamp and seeds', async () => {
    const { runDivergenceProtocol } = await import('./run');
    const { renderDivergenceRelease } = await import('./release');
    const createdAt = '2026-09-01T00:00:00.000Z';
    const once = async () => {
      const dir = join(mkdtempSync(join(tmpdir(), 'chi-divergence-det-')), 'run');
      const { analysis } = await runDivergenceProtocol({
        runDir: dir,
        worlds: 2,
        resamples: 30,
        createdAt,
      });
      return {
        files: renderDivergenceRelease(analysis),
        calls: readFileSync(join(dir, 'calls.jsonl'), 'utf8'),
      };
    };
    const [first, second] = [await once(), await once()];
    expect([...second.files]).toEqual([...first.files]);
    expect(second.calls).toBe(first.calls);
  }, 60_000);
});
