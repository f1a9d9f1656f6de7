import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError, ValidationError } from '@chi/spec';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sha256Hex } from '../canonical-json';
import {
  checkSha256Sums,
  formatSha256Sums,
  parseSha256Sums,
  SHA256SUMS_FILE,
  writeSha256Sums,
} from './sha256-sums';

const H_ABC = sha256Hex('abc');
const H_EMPTY = sha256Hex('');

describe('formatSha256Sums / parseSha256Sums', () => {
  it('writes "<hex>  <path>" lines sorted by UTF-8 bytes with a final newline', () => {
    const text = formatSha256Sums([
      { path: 'b/z.txt', sha256: H_ABC },
      { path: 'B.txt', sha256: H_EMPTY },
      { path: 'a.txt', sha256: H_ABC },
    ]);
    expect(text).toBe(`${H_EMPTY}  B.txt\n${H_ABC}  a.txt\n${H_ABC}  b/z.txt\n`);
    expect(parseSha256Sums(text)).toEqual([
      { path: 'B.txt', sha256: H_EMPTY },
      { path: 'a.txt', sha256: H_ABC },
      { path: 'b/z.txt', sha256: H_ABC },
    ]);
  });

  it('refuses unsafe paths, bad digests and duplicates', () => {
    expect(() => formatSha256Sums([{ path: '../x', sha256: H_ABC }])).toThrow(InvalidArgumentError);
    expect(() => formatSha256Sums([{ path: 'a\\b', sha256: H_ABC }])).toThrow(/backslash/);
    expect(() => formatSha256Sums([{ path: 'a', sha256: 'XYZ' }])).toThrow(/entries\[0\]\.sha256/);
    expect(() =>
      formatSha256Sums([
        { path: 'a', sha256: H_ABC },
        { path: 'a', sha256: H_EMPTY },
      ]),
    ).toThrow(/listed twice/);
  });

  it('names every malformed line by number', () => {
    try {
      parseSha256Sums(`${H_ABC}  ok\nnot a line\n${H_ABC} *bin\nzz  short\n`);
      expect.unreachable();
    } catch (error) {
      expect(ValidationError.isInstance(error)).toBe(true);
      const issues = (error as ValidationError).issues.map((issue) => issue.path);
      expect(issues).toEqual(['line 2', 'line 4']);
    }
  });
});

describe('writeSha256Sums / checkSha256Sums on a tree', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'chi-sums-'));
    await mkdir(join(root, 'figures'));
    await writeFile(join(root, 'report.md'), '# report\n');
    await writeFile(join(root, 'figures', 'a.svg'), '<svg/>');
  });
  afterEach(async () => rm(root, { recursive: true, force: true }));

  it('is accepted by coreutils `sha256sum -c`', async () => {
    await writeSha256Sums(root);
    const text = await readFile(join(root, SHA256SUMS_FILE), 'utf8');
    expect(text).toBe(
      `${sha256Hex('<svg/>')}  figures/a.svg\n${sha256Hex('# report\n')}  report.md\n`,
    );
    const out = execFileSync('sha256sum', ['-c', SHA256SUMS_FILE], { cwd: root, encoding: 'utf8' });
    expect(out).toBe('figures/a.svg: OK\nreport.md: OK\n');
    expect(await checkSha256Sums(root)).toEqual([]);
  });

  it('names a changed, a missing and an unlisted file', async () => {
    await writeSha256Sums(root);
    await writeFile(join(root, 'report.md'), '# report, edited\n');
    await rm(join(root, 'figures', 'a.svg'));
    await writeFile(join(root, 'extra.txt'), 'x');
    const problems = await checkSha256Sums(root);
    expect(problems.map((p) => [p.path, p.kind])).toEqual([
      ['extra.txt', 'unlisted'],
      ['figures/a.svg', 'missing'],
      ['report.md', 'mismatch'],
    ]);
    expect(problems[2]?.message).toContain(sha256Hex('# report, edited\n'));
  });

  it('names the file whose listed digest was edited', async () => {
    await writeSha256Sums(root);
    const text = await readFile(join(root, SHA256SUMS_FILE), 'utf8');
    await writeFile(join(root, SHA256SUMS_FILE), text.replace(sha256Hex('<svg/>'), H_ABC));
    const problems = await checkSha256Sums(root);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ path: 'figures/a.svg', kind: 'mismatch' });
  });

  it('reports an absent SHA256SUMS as malformed', async () => {
    const problems = await checkSha256Sums(root);
    expect(problems).toEqual([
      expect.objectContaining({ path: SHA256SUMS_FILE, kind: 'malformed' }),
    ]);
  });
});
