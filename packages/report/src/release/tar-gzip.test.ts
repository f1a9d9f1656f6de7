import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { packTarGzip, readTarGzip } from './tar-gzip';

const utf8 = (text: string) => new TextEncoder().encode(text);

describe('packTarGzip', () => {
  it('writes an archive that tar itself lists and extracts, with npm layout and fixed times', () => {
    const dir = mkdtempSync(join(tmpdir(), 'chi-tar-'));
    try {
      const long = `package/${'d'.repeat(60)}/${'e'.repeat(60)}/file.txt`;
      const archive = packTarGzip([
        { path: 'package/package.json', bytes: utf8('{"name":"x"}\n') },
        { path: long, bytes: utf8('hello') },
        { path: 'package/empty', bytes: new Uint8Array(0) },
      ]);
      writeFileSync(join(dir, 'x.tgz'), archive);
      const listing = execFileSync('tar', ['-tvzf', 'x.tgz'], { cwd: dir, encoding: 'utf8' });
      expect(listing).toContain('1985-10-26');
      expect(
        listing
          .trim()
          .split('\n')
          .map((line) => line.split(/\s+/).at(-1)),
      ).toEqual(['package/package.json', long, 'package/empty']);
      execFileSync('tar', ['-xzf', 'x.tgz'], { cwd: dir });
      expect(readFileSync(join(dir, long), 'utf8')).toBe('hello');
      expect(readFileSync(join(dir, 'package/package.json'), 'utf8')).toBe('{"name":"x"}\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is reproducible and reads back exactly what it packed', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^[a-z0-9]{1,20}$/), { minLength: 1, maxLength: 5 }),
        fc.uint8Array({ maxLength: 1500 }),
        (names, bytes) => {
          const entries = names.map((name, index) => ({
            path: `package/${name}`,
            bytes: bytes.subarray(0, index * 300),
          }));
          const archive = packTarGzip(entries);
          expect(packTarGzip(entries)).toEqual(archive);
          expect(readTarGzip(archive)).toEqual(entries);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('gives every caller its own bytes when it packs the same files again', () => {
    // the process keeps what it gzipped (equal input, equal output): a caller that changes the
    // bytes it got changes neither what the next caller gets nor what a fresh gzip would give
    const entries = [{ path: 'package/a.txt', bytes: utf8('the same file, packed again\n') }];
    const first = packTarGzip(entries);
    const pristine = first.slice();
    first.fill(0);
    const second = packTarGzip(entries);
    expect(second).toEqual(pristine);
    expect(second).not.toBe(first);
    expect(readTarGzip(second)).toEqual(entries);
    const other = [{ path: 'package/a.txt', bytes: utf8('another file\n') }];
    expect(readTarGzip(packTarGzip(other))).toEqual(other);
  });
});
