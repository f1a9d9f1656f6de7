import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { FileWindow } from './file-window';

const root = mkdtempSync(join(tmpdir(), 'chi-file-window-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
// 3 MiB of varied bytes: ranges in file order cross several windows
const content = Buffer.alloc(3 << 20);
for (let i = 0; i < content.length; i++) content[i] = (i * 2654435761) >>> 24;
const path = join(root, 'file.bin');
writeFileSync(path, content);

describe('FileWindow', () => {
  it('gives the bytes of every range, in file order and scattered alike', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat({ max: content.length - 1 }), fc.nat({ max: 200_000 })), {
          minLength: 1,
          maxLength: 40,
        }),
        fc.boolean(),
        (ranges, sorted) => {
          const asked = ranges.map(([start, length]) => ({
            start,
            end: Math.min(content.length, start + length),
          }));
          if (sorted) asked.sort((a, b) => a.start - b.start);
          const window = new FileWindow(path);
          for (const { start, end } of asked)
            expect(window.bytes(start, end).equals(content.subarray(start, end))).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });
});
