import { createHash } from 'node:crypto';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { writeSha256Sums } from '@chi/report';
import { attemptRecordSha256 } from '@chi/run/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureIo } from '../__fixtures__/cli-io';
import { sharedDivergenceRun } from '../__fixtures__/shared-divergence-run';
import { testFolder } from '../__fixtures__/test-folder';
import { runCli } from '../cli/cli-main';
import { worldSeedsFor } from '../run-folder/run-worlds';

/**
 * The offline divergence run `--replicates 2 --seed 7 --resamples 20 --out run`, made once per
 * vitest run and shared with release-copy.test.ts and view.test.ts (`sharedDivergenceRun`): the
 * end-to-end test checks its output, the --seed test its manifest, the resume test resumes a copy
 * of it, the damage tests change copies of its release, and the integrity tests read it. Nothing
 * writes into it (every edit is on a copy).
 */
const sharedRun = sharedDivergenceRun;

describe('chi pilot --protocol divergence-v0.1', () => {
  it('--plan prints the request count and worst-case cost and sends nothing', async () => {
    const cwd = testFolder('chi-divergence-plan-');
    const cli = captureIo({ cwd });
    const code = await runCli(
      ['pilot', '--protocol', 'divergence-v0.1', '--plan', '--replicates', '2'],
      cli.io,
    );
    expect(code).toBe(0);
    expect(cli.out()).toContain('requests per world and system: 287');
    // 3 scripted systems x 2 worlds x 287.
    expect(cli.out()).toContain('total requests: 1722');
    expect(cli.out()).toMatch(/one live model over this plan .* worst case \d+\.\d{6} USD/);
    expect(cli.out()).toContain('primary checkpoint 6 (frozen in the manifest)');
  });

  it('refuses a resume option the protocol does not have instead of ignoring it (exit 2)', async () => {
    const cwd = testFolder('chi-divergence-resume-options-');
    // a copy of the shared finished run (a run of its own before: the same command, one world)
    cpSync((await sharedRun()).runDir, join(cwd, 'run'), { recursive: true });
    const resumed = captureIo({ cwd });
    expect(await runCli(['pilot', '--resume', 'run', '--no-release'], resumed.io)).toBe(2);
    expect(resumed.err()).toContain('--no-release: a divergence run folder');
    // --concurrency applies (the shared runner): a finished run resumes with nothing to send
    const concurrent = captureIo({ cwd });
    expect(await runCli(['pilot', '--resume', 'run', '--concurrency', '4'], concurrent.io)).toBe(0);
  });

  it('refuses to resume a folder of the sequential executor (no plan.json) with exit 5 naming it', async () => {
    const cwd = testFolder('chi-divergence-legacy-');
    const legacy = join(cwd, 'legacy');
    mkdirSync(legacy);
    writeFileSync(
      join(legacy, 'manifest.json'),
      `${JSON.stringify({ kind: 'divergence-manifest', protocol: 'divergence-v0.1' })}\n`,
    );
    writeFileSync(join(legacy, 'calls.jsonl'), '');
    const resumed = captureIo({ cwd });
    expect(await runCli(['pilot', '--resume', 'legacy'], resumed.io)).toBe(5);
    expect(resumed.err()).toContain(join(legacy, 'plan.json'));
    expect(resumed.err()).toContain('sequential executor');
    const verified = captureIo({ cwd });
    writeFileSync(join(legacy, 'divergence.json'), '{}\n');
    expect(await runCli(['verify', 'legacy'], verified.io)).not.toBe(0);
  });

  it('refuses an unknown protocol and options that do not apply (exit 2)', async () => {
    const cwd = testFolder('chi-divergence-bad-');
    const unknown = captureIo({ cwd });
    expect(await runCli(['pilot', '--protocol', 'divergence-v9', '--plan'], unknown.io)).toBe(2);
    expect(unknown.err()).toContain('expected divergence-v0.1');
    const conflicting = captureIo({ cwd });
    expect(
      await runCli(['pilot', '--protocol', 'divergence-v0.1', '--loads', '32'], conflicting.io),
    ).toBe(2);
    expect(conflicting.err()).toContain('remove --loads');
    // live systems are chosen as for the default pilot, which needs a ceiling
    const noCeiling = captureIo({ cwd });
    expect(
      await runCli(
        [
          'pilot',
          '--protocol',
          'divergence-v0.1',
          '--base-url',
          'http://127.0.0.1:9/v1',
          '--models',
          'm',
        ],
        noCeiling.io,
      ),
    ).toBe(2);
    expect(noCeiling.err()).toContain('--ceiling-usd');
  });

  it('runs offline end to end and chi verify recomputes the release', async () => {
    const { cwd, code, out, runDir } = await sharedRun();
    const argv = ['pilot', '--protocol', 'divergence-v0.1', '--replicates', '2'];
    expect(code).toBe(0);
    const release = out.trim().split('\n').at(-1) as string;
    expect(release).toBe(join(cwd, 'run', 'release'));
    expect(readFileSync(join(release, 'report.md'), 'utf8')).toContain(
      'SCRIPTED BASELINE, not a model',
    );
    const verify = captureIo({ cwd });
    expect(await runCli(['verify', release], verify.io)).toBe(0);
    // the pilot's verifier report: every file against SHA256SUMS, every derived file recomputed
    expect(verify.out()).toMatch(/^OK: \d+ files match SHA256SUMS; 14 derived files recomputed/);
    // A second run into the same folder would mix two manifests: refused (into a copy of it, so
    // that a regression cannot write into the shared run).
    const copy = testFolder('chi-divergence-again-');
    cpSync(runDir, join(copy, 'run'), { recursive: true });
    const again = captureIo({ cwd: copy });
    expect(await runCli([...argv, '--out', 'run'], again.io)).toBe(2);
  });
});

describe('chi pilot --config selecting the divergence protocol', () => {
  it('runs it from the file, with progress and the run-folder line on stderr like the pilot', async () => {
    const cwd = testFolder('chi-divergence-config-');
    writeFileSync(
      join(cwd, 'divergence.json'),
      JSON.stringify({ protocol: 'divergence-v0.1', replicates: 1, resamples: 20, out: 'div' }),
    );
    const cli = captureIo({ cwd });
    expect(await runCli(['pilot', '--config', 'divergence.json'], cli.io), cli.err()).toBe(0);
    expect(cli.err()).toContain(`chi: run folder ${join(cwd, 'div')}`);
    expect(cli.err()).toMatch(/requests \(100%\)/);
    // the release steps and the release line, as the default pilot prints them
    expect(cli.err()).toMatch(/chi: writing the release \(tables, figures, report, README\)/);
    expect(cli.err()).toContain(`chi: release written to ${join(cwd, 'div', 'release')}`);
    expect(cli.out().trim().split('\n').at(-1)).toBe(join(cwd, 'div', 'release'));
    const manifest = JSON.parse(readFileSync(join(cwd, 'div', 'manifest.json'), 'utf8'));
    expect(manifest.worldSeeds).toHaveLength(1);
    // an option the protocol does not have is named as the file's key
    writeFileSync(
      join(cwd, 'bad.json'),
      JSON.stringify({ protocol: 'divergence-v0.1', loads: [32] }),
    );
    const bad = captureIo({ cwd });
    expect(await runCli(['pilot', '--config', 'bad.json'], bad.io)).toBe(2);
    expect(bad.err()).toContain('remove loads (bad.json)');
  });
});

describe('chi verify on a damaged divergence release', () => {
  it('exits 1 with a raw mismatch naming the file when the manifest was edited or the log truncated', async () => {
    const cwd = testFolder('chi-divergence-damaged-');
    // a copy of the shared offline run (sharedRun), damaged below
    const release = join(cwd, 'run', 'release');
    cpSync((await sharedRun()).release, release, { recursive: true });
    const manifestPath = join(release, 'manifest.json');
    const sumPath = join(release, 'manifest.sha256');
    const original = readFileSync(manifestPath, 'utf8');
    const originalSum = readFileSync(sumPath, 'utf8');
    const edit = original.replace('"primaryCheckpoint":6', '"primaryCheckpoint":5');
    writeFileSync(manifestPath, edit);
    await writeSha256Sums(release);
    const edited = captureIo({ cwd });
    expect(await runCli(['verify', release], edited.io)).toBe(1);
    expect(edited.err()).toContain('MISMATCH manifest.json: unreadable raw record');
    expect(edited.err()).toContain('manifest.sha256');
    // Consistent tampering (manifest.sha256 and SHA256SUMS rewritten too) reaches the raw records.
    writeFileSync(sumPath, `${createHash('sha256').update(edit).digest('hex')}  manifest.json\n`);
    await writeSha256Sums(release);
    const rehashed = captureIo({ cwd });
    expect(await runCli(['verify', release], rehashed.io)).toBe(1);
    expect(rehashed.err()).toContain('MISMATCH attempts.jsonl: unreadable raw record');
    expect(rehashed.err()).toContain('attempts.jsonl');
    writeFileSync(manifestPath, original);
    writeFileSync(sumPath, originalSum);
    const log = join(release, 'attempts.jsonl');
    const lines = readFileSync(log, 'utf8').split('\n');
    // Only the records of the first request: every other instance stops short without a reason.
    const first = (JSON.parse(lines[0] as string) as { requestId: string }).requestId;
    const kept = lines.filter((line) => line !== '' && JSON.parse(line).requestId === first);
    writeFileSync(log, `${kept.join('\n')}\n`);
    await writeSha256Sums(release);
    const truncated = captureIo({ cwd });
    expect(await runCli(['verify', release], truncated.io)).toBe(1);
    // the records removed break the attempt log's hash chain, checked before anything is read
    expect(truncated.err()).toMatch(
      /MISMATCH attempts\.jsonl: unreadable raw record: .*a record was edited, removed or inserted/,
    );
    // re-linked (a consistent log of one request): the instances that stop short are named
    const relinked = kept.map((line) => JSON.parse(line) as Record<string, unknown>);
    relinked.forEach((record, at) => {
      if (at > 0) record.previousSha256 = attemptRecordSha256(relinked[at - 1]);
    });
    writeFileSync(log, relinked.map((record) => `${JSON.stringify(record)}\n`).join(''));
    await writeSha256Sums(release);
    const stopped = captureIo({ cwd });
    expect(await runCli(['verify', release], stopped.io)).toBe(1);
    expect(stopped.err()).toMatch(/arm A has [01] of its 13 calls and no reason it stopped/);
    // A manifest that breaks its schema (consistently re-hashed) names the file and the field.
    writeFileSync(log, lines.join('\n'));
    const invalid = original.replace('"ceilingUsd":0,', '"ceilingUsd":"none",');
    writeFileSync(manifestPath, invalid);
    writeFileSync(
      sumPath,
      `${createHash('sha256').update(invalid).digest('hex')}  manifest.json\n`,
    );
    await writeSha256Sums(release);
    const schema = captureIo({ cwd });
    expect(await runCli(['verify', release], schema.io)).toBe(1);
    expect(schema.err()).toContain('manifest.json');
    expect(schema.err()).toContain('ceilingUsd');
  });

  it('--seed: frozen in the manifest, other seeds other worlds, verify passes (issue 31)', async () => {
    const cwd = testFolder('chi-divergence-seed-');
    const run = async (seed: string, out: string) => {
      const cli = captureIo({ cwd });
      const argv = ['pilot', '--protocol', 'divergence-v0.1', '--replicates', '2', '--seed', seed];
      expect(await runCli([...argv, '--resamples', '20', '--out', out], cli.io)).toBe(0);
      const manifest = JSON.parse(readFileSync(join(cwd, out, 'manifest.json'), 'utf8'));
      return { manifest, release: join(cwd, out, 'release') };
    };
    // seed 7: the shared run (same options as `run` below)
    const shared = await sharedRun();
    expect(shared.code).toBe(0);
    const seven = {
      manifest: JSON.parse(readFileSync(join(shared.cwd, 'run', 'manifest.json'), 'utf8')),
      release: shared.release,
    };
    const eight = await run('8', 'eight');
    // Frozen as the pilot freezes it: the world seeds the root seed gives.
    expect(seven.manifest.worldSeeds).toEqual(worldSeedsFor(7, 2));
    expect(eight.manifest.worldSeeds).toEqual(worldSeedsFor(8, 2));
    expect(seven.manifest.worldSeeds).not.toEqual(eight.manifest.worldSeeds);
    // (the end-to-end test verifies the seed-7 release)
    const verify = captureIo({ cwd });
    expect(await runCli(['verify', eight.release], verify.io)).toBe(0);
    const plan = captureIo({ cwd });
    const planArgs = ['pilot', '--protocol', 'divergence-v0.1', '--plan', '--seed', '9'];
    expect(await runCli(planArgs, plan.io)).toBe(0);
  });

  it('writes byte-identical releases for the same manifest timestamp and seeds', async () => {
    const { runDivergenceProtocol } = await import('./run');
    const { renderDivergenceRelease } = await import('./release');
    const at = new Date('2026-09-01T00:00:00.000Z');
    const once = async () => {
      const dir = join(testFolder('chi-divergence-det-'), 'run');
      // One request in flight, so the attempt log's order does not depend on scheduling.
      const { analysis } = await runDivergenceProtocol({
        runDir: dir,
        worlds: 2,
        rootSeed: 11,
        resamples: 30,
        now: () => at,
        concurrency: 1,
      });
      return {
        files: renderDivergenceRelease(analysis),
        calls: readFileSync(join(dir, 'attempts.jsonl'), 'utf8'),
      };
    };
    const [first, second] = [await once(), await once()];
    expect([...second.files]).toEqual([...first.files]);
    expect(second.calls).toBe(first.calls);
  });
});

describe('divergence release integrity', () => {
  let cwd: string;
  let published: string;
  /** A fresh copy of the published release, to damage. */
  const copy = (name: string): string => {
    const target = join(cwd, name);
    cpSync(published, target, { recursive: true });
    return target;
  };
  const verify = async (release: string) => {
    const cli = captureIo({ cwd });
    return { code: await runCli(['verify', release], cli.io), err: cli.err(), out: cli.out() };
  };

  beforeAll(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'chi-divergence-integrity-'));
    // the shared offline run (sharedRun), verified and left intact by the tests above
    published = (await sharedRun()).release;
  });
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  it('writes a sha256sum -c compatible SHA256SUMS over every other file of the release', () => {
    const files = readdirSync(published, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name !== 'SHA256SUMS')
      .map((entry) => relative(published, join(entry.parentPath, entry.name)))
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(files.filter((name) => !/^(code|payloads|prompts)\//.test(name))).toEqual([
      'README.md',
      'attempts.jsonl',
      'chis/hidden-state.jsonl',
      'chis/notebook-follower.jsonl',
      'chis/stateless.jsonl',
      'divergence-accuracy.csv',
      'divergence-dynamics.csv',
      'divergence-trajectory.csv',
      'divergence-worlds.csv',
      'divergence.json',
      'figures/divergence-accuracy.svg',
      'figures/divergence-dynamics.svg',
      'figures/divergence-trajectory.svg',
      'manifest.json',
      'manifest.sha256',
      'plan.json',
      'report.html',
      'report.md',
      'requests.jsonl',
    ]);
    expect(files).toContain('code/verify.mjs');
    expect(files.some((name) => name.startsWith('payloads/'))).toBe(true);
    expect(files.some((name) => name.startsWith('prompts/'))).toBe(true);
    const expected = files
      .map(
        (name) =>
          `${createHash('sha256')
            .update(readFileSync(join(published, name)))
            .digest('hex')}  ${name}\n`,
      )
      .join('');
    expect(readFileSync(join(published, 'SHA256SUMS'), 'utf8')).toBe(expected);
  });

  it('verify names the layout of a release written before report.md instead of listing missing files', async () => {
    const old = copy('old-layout');
    // the layout before issue 37: divergence.md at the root, no report.md; SHA256SUMS consistent
    renameSync(join(old, 'report.md'), join(old, 'divergence.md'));
    rmSync(join(old, 'SHA256SUMS'));
    await writeSha256Sums(old);
    const result = await verify(old);
    expect(result.code).toBe(1);
    expect(result.err).toContain(
      'MISMATCH recomputation failed: divergence.md: this divergence release has the layout before figures/ and report.md',
    );
    expect(result.err).toContain('node code/verify.mjs . inside it');
    expect(result.err).not.toContain('missing');
  });

  it('verify names an altered, a missing and an unlisted file before recomputing (exit 1)', async () => {
    const intact = await verify(published);
    expect(intact.code).toBe(0);
    expect(intact.out).toMatch(/^OK: \d+ files match SHA256SUMS/);

    const altered = copy('altered');
    writeFileSync(join(altered, 'report.md'), '# edited\n');
    const a = await verify(altered);
    expect(a.code).toBe(1);
    expect(a.err).toMatch(/^MISMATCH report\.md: SHA-256 is [0-9a-f]{64}, SHA256SUMS lists/m);

    const missing = copy('missing');
    rmSync(join(missing, 'divergence-trajectory.csv'));
    const m = await verify(missing);
    expect(m.code).toBe(1);
    expect(m.err).toContain(
      'MISMATCH divergence-trajectory.csv: listed in SHA256SUMS but not present',
    );

    const extra = copy('extra');
    writeFileSync(join(extra, 'notes.txt'), 'added later\n');
    const e = await verify(extra);
    expect(e.code).toBe(1);
    expect(e.err).toContain(
      'MISMATCH notes.txt: present in the release but not listed in SHA256SUMS',
    );
    // (and, being neither raw nor derived, reported as unexpected too)
    expect(e.err).toContain('MISMATCH notes.txt: not a raw record and not produced by the');
    expect(e.err).toContain('FAILED: 2 mismatch(es) in 1 file(s): notes.txt');

    const noSums = copy('no-sums');
    rmSync(join(noSums, 'SHA256SUMS'));
    const n = await verify(noSums);
    expect(n.code).toBe(1);
    expect(n.err).toContain('MISMATCH cannot read SHA256SUMS');
  });

  it('exits 1 naming attempts.jsonl and the line when a record lacks a field or has a mistyped one', async () => {
    const damage = async (
      name: string,
      line: (lines: string[]) => number,
      edit: (record: Record<string, unknown>) => void,
    ) => {
      const release = copy(name);
      const log = join(release, 'attempts.jsonl');
      const lines = readFileSync(log, 'utf8').split('\n');
      const at = line(lines);
      const record = JSON.parse(lines[at - 1] as string) as Record<string, unknown>;
      edit(record);
      lines[at - 1] = JSON.stringify(record);
      writeFileSync(log, lines.join('\n'));
      // SHA256SUMS rewritten too, so the schema check itself is what catches the line.
      await writeSha256Sums(release);
      return { ...(await verify(release)), at };
    };
    const missing = await damage(
      'no-field',
      () => 3,
      (record) => {
        delete record.requestSha256;
      },
    );
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/attempts\.jsonl.*line 3 of .*attempts\.jsonl.*requestSha256/);

    const mistyped = await damage(
      'mistyped',
      () => 7,
      (record) => {
        record.inputBytes = '1';
      },
    );
    expect(mistyped.code).toBe(1);
    expect(mistyped.err).toMatch(/line 7 of .*attempts\.jsonl.*inputBytes/);

    const answered = (lines: string[]) =>
      lines.findIndex((line) => line.includes('"phase":"after_response"')) + 1;
    const nested = await damage('nested', answered, (record) => {
      (record.result as Record<string, unknown>).chargedUsd = -1;
    });
    expect(nested.code).toBe(1);
    expect(nested.err).toMatch(
      new RegExp(`line ${nested.at} of .*attempts\\.jsonl.*result\\.chargedUsd`),
    );
  });

  it('exits 1 when the last line of attempts.jsonl is torn (an unfinished write)', async () => {
    const release = copy('torn');
    const log = join(release, 'attempts.jsonl');
    const text = readFileSync(log, 'utf8');
    writeFileSync(log, text.slice(0, text.length - 40));
    await writeSha256Sums(release);
    const torn = await verify(release);
    expect(torn.code).toBe(1);
    const lines = text.split('\n').filter((line) => line !== '').length;
    expect(torn.err).toMatch(new RegExp(`attempts\\.jsonl: line ${lines} is torn`));
  });
});
