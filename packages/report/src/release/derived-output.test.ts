import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../__fixtures__/temp-dir';
import { sha256Hex } from '../canonical-json';
import { DerivedFilesOnDisk } from './derived-output';
import { findSecrets } from './secrets';

const PATHS = ['a.jsonl', 'traces/s/memory-n8.jsonl', 'traces/s/history.jsonl', 'report.md'];
const FORBIDDEN = ['private-key-0123'];

/** A line as the trace sink appends it: JSON, sometimes holding something the scan must find. */
const LINE = fc
  .oneof(
    fc.jsonValue({ maxDepth: 2 }),
    fc.constantFrom(
      { authorization: 'Bearer abcdefgh12345678' },
      { reasoning: 'hidden text' },
      { text: 'has private-key-0123 inside' },
      { text: 'sk-or-v1-0123456789abcdef0123' },
      // longer than one write: the file is written in several
      { text: 'x'.repeat(40_000) },
    ),
  )
  .map((value) => `${JSON.stringify(value)}\n`);

const OPERATION = fc.oneof(
  fc.record({ path: fc.constantFrom(...PATHS), line: LINE }),
  fc.record({ path: fc.constantFrom(...PATHS), text: fc.string({ maxLength: 40 }) }),
);

describe('DerivedFilesOnDisk', () => {
  let dir: { path: string; remove: () => Promise<void> };
  beforeAll(async () => {
    dir = await tempDir('derived-output');
  });
  afterAll(async () => dir.remove());

  it('writes, hashes and scans each file exactly as its whole text would be', async () => {
    const out = join(dir.path, 'out');
    await fc.assert(
      fc.asyncProperty(fc.array(OPERATION, { maxLength: 60 }), async (operations) => {
        await rm(out, { recursive: true, force: true });
        const files = new DerivedFilesOnDisk(out, FORBIDDEN);
        // what each file must hold: its last whole text, or the lines appended since
        const expected = new Map<string, { text: string; appended: boolean }>();
        for (const operation of operations) {
          if ('line' in operation) {
            files.appendLine(operation.path, operation.line);
            const held = expected.get(operation.path);
            expected.set(operation.path, {
              text: held?.appended === true ? held.text + operation.line : operation.line,
              appended: true,
            });
          } else {
            files.file(operation.path, operation.text);
            expected.set(operation.path, { text: operation.text, appended: false });
          }
        }
        const written = files.finish();
        expect([...written.keys()].sort()).toEqual([...expected.keys()].sort());
        for (const [path, { text }] of expected) {
          expect(await readFile(join(out, path), 'utf8')).toBe(text);
          expect(written.get(path)).toEqual({
            sha256: sha256Hex(Buffer.from(text, 'utf8')),
            findings: findSecrets(path, text, FORBIDDEN),
          });
        }
      }),
      { numRuns: 100 },
    );
    await rm(out, { recursive: true, force: true });
  });

  it('scans nothing without forbidden strings (verify only compares)', () => {
    const files = new DerivedFilesOnDisk(join(dir.path, 'unscanned'), null);
    files.appendLine('t.jsonl', '{"authorization":"Bearer abcdefgh12345678"}\n');
    files.file('u.json', '{"reasoning":"x"}');
    expect([...files.finish().values()].map((file) => file.findings)).toEqual([[], []]);
  });
});
