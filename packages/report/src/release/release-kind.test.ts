import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RunFolderDamagedError } from '@chi/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../__fixtures__/temp-dir';
import { verifyRelease } from '../verify/verify-release';
import type { ReleaseKind } from './release-kind';
import { findSecrets } from './secrets';
import { writeSha256Sums } from './sha256-sums';
import { SecretLeakError, writeRelease } from './write-release';

/**
 * A release kind of a made-up protocol: its raw part is the manifest and a tally log, written
 * as the run wrote them (not canonical JSON); its one derived file sums the tally. It stands for
 * any protocol release (the divergence protocol's lives with the pilot), so the seam is tested
 * here without the report knowing any protocol but the pilot's.
 */
const TALLY: ReleaseKind = {
  specificationVersion: 'v1',
  protocol: 'tally-v1',
  rawCopy: 'verbatim',
  isRawPath: (path) => path === 'manifest.json' || path === 'tally.jsonl',
  async derive(dir) {
    const path = join(dir, 'tally.jsonl');
    const lines = (await readFile(path, 'utf8')).split('\n');
    let total = 0;
    for (const [index, line] of lines.entries()) {
      if (line === '') continue;
      try {
        total += (JSON.parse(line) as { n: number }).n;
      } catch {
        throw new RunFolderDamagedError(path, `line ${index + 1} is not JSON`);
      }
    }
    const summary = `${JSON.stringify({ total, counts: lines.length - 1 }, null, 2)}\n`;
    return { files: new Map([['summary.json', summary]]), evidenceBanner: 'Scripted tally' };
  },
};

/** A run folder of the tally protocol, with a file the release does not carry. */
async function tallyRun(runDir: string, note = 'a'): Promise<void> {
  await mkdir(runDir, { recursive: true });
  // pretty-printed on purpose: a verbatim kind publishes these bytes, not canonical JSON
  await writeFile(join(runDir, 'manifest.json'), '{\n  "protocol": "tally-v1"\n}\n');
  await writeFile(join(runDir, 'tally.jsonl'), `{"n": 2, "note": "${note}"}\n{"n": 3}\n`);
  await writeFile(join(runDir, 'status.json'), '{"state":"completed"}\n');
}

describe('a release kind in writeRelease and verifyRelease', () => {
  let dir: { path: string; remove: () => Promise<void> };
  beforeAll(async () => {
    dir = await tempDir('release-kind');
  });
  afterAll(async () => dir.remove());

  it('writes the raw files verbatim, the derived files and SHA256SUMS; verify finds the kind by protocol', async () => {
    const runDir = join(dir.path, 'run');
    await tallyRun(runDir);
    const outDir = join(runDir, 'release');
    const summary = await writeRelease({ runDir, outDir, kind: TALLY });
    expect(summary.files).toEqual(['SHA256SUMS', 'manifest.json', 'summary.json', 'tally.jsonl']);
    expect(summary).toMatchObject({ runId: 'run', evidenceBanner: 'Scripted tally' });
    for (const raw of ['manifest.json', 'tally.jsonl'])
      expect(await readFile(join(outDir, raw), 'utf8')).toBe(
        await readFile(join(runDir, raw), 'utf8'),
      );
    expect(JSON.parse(await readFile(join(outDir, 'summary.json'), 'utf8'))).toEqual({
      total: 5,
      counts: 2,
    });
    const report = await verifyRelease(outDir, { kinds: [TALLY] });
    expect(report).toMatchObject({ ok: true, mismatches: [], recomputedFiles: 1, checkedFiles: 4 });
    // edited consistently (SHA256SUMS rewritten): the recomputation names the JSON path
    await writeFile(join(outDir, 'summary.json'), '{"total": 6, "counts": 2}\n');
    await writeSha256Sums(outDir);
    const edited = await verifyRelease(outDir, { kinds: [TALLY] });
    expect(edited.mismatches).toEqual([
      expect.objectContaining({ file: 'summary.json', kind: 'value', at: 'total', recorded: '6' }),
    ]);
  });

  it('refuses a secret in a raw file of the kind, writing nothing', async () => {
    const runDir = join(dir.path, 'leaky');
    await tallyRun(runDir, 'forbidden-value-123');
    const outDir = join(runDir, 'release');
    const written = writeRelease({
      runDir,
      outDir,
      kind: TALLY,
      forbiddenStrings: ['forbidden-value-123'],
    });
    await expect(written).rejects.toSatisfy((error) => SecretLeakError.isInstance(error));
    expect(existsSync(outDir)).toBe(false);
    expect((await readdir(runDir)).filter((name) => name.startsWith('.release'))).toEqual([]);
  });

  it('scans a verbatim JSONL file line by line as findSecrets scans its whole text', async () => {
    const runDir = join(dir.path, 'fields');
    await tallyRun(runDir);
    // a blank line is not counted; the header field is on the second record
    const text = '{"n": 2}\n\n{"n": 3, "headers": {"Authorization": "x"}}\n';
    await writeFile(join(runDir, 'tally.jsonl'), text);
    const written = writeRelease({ runDir, outDir: join(runDir, 'release'), kind: TALLY });
    const error = await written.then(
      () => null,
      (thrown: unknown) => thrown,
    );
    expect(SecretLeakError.isInstance(error)).toBe(true);
    const { findings } = error as SecretLeakError;
    expect(findings).toEqual(findSecrets('tally.jsonl', text));
    expect(findings).toEqual([expect.objectContaining({ what: expect.stringMatching(/line 2/) })]);
  });

  it('reports a damaged raw record of the kind as a raw mismatch naming the file', async () => {
    const runDir = join(dir.path, 'damaged');
    await tallyRun(runDir);
    const outDir = join(runDir, 'release');
    await writeRelease({ runDir, outDir, kind: TALLY });
    await writeFile(join(outDir, 'tally.jsonl'), '{"n": 2}\n{"n": \n');
    await writeSha256Sums(outDir);
    const report = await verifyRelease(outDir, { kinds: [TALLY] });
    expect(report.ok).toBe(false);
    expect(report.mismatches).toEqual([
      expect.objectContaining({
        file: 'tally.jsonl',
        kind: 'raw',
        message: expect.stringMatching(
          /^tally\.jsonl: unreadable raw record: .*line 2 is not JSON/,
        ),
      }),
    ]);
  });
});
