import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ValidationError } from '@chi/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readJsonl, streamJsonl } from './jsonl-reader';

const Sequence = z.strictObject({ n: z.int(), note: z.string() });
const line = (n: number, note = '') => `${JSON.stringify({ n, note })}\n`;

let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'chis-reader-'));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe('streamJsonl', () => {
  it('yields the same records for every chunk size, including lines longer than a chunk', async () => {
    const path = join(directory, 'chunks.jsonl');
    const notes = ['', 'ä'.repeat(40), 'short', '🙂'.repeat(25), ''];
    await writeFile(path, notes.map((note, n) => line(n, note)).join(''));
    for (const chunkBytes of [1, 2, 3, 7, 64, 1 << 20]) {
      const seen: { n: number; note: string }[] = [];
      const stream = streamJsonl(path, Sequence, { chunkBytes });
      for await (const record of stream) seen.push(record);
      expect(seen).toEqual(notes.map((note, n) => ({ n, note })));
      expect(stream.complete).toBe(true);
      expect(stream.tornTail).toBeNull();
    }
  });

  it('reports the torn tail once the iteration completes, with small chunks too', async () => {
    const path = join(directory, 'torn.jsonl');
    await writeFile(path, `${line(0)}${line(1)}{"n":2,"no`);
    const stream = streamJsonl(path, Sequence, { chunkBytes: 5 });
    expect(stream.complete).toBe(false);
    const seen: number[] = [];
    for await (const record of stream) seen.push(record.n);
    expect(seen).toEqual([0, 1]);
    expect(stream.tornTail).toEqual({
      byteOffset: line(0).length * 2,
      byteLength: 10,
      text: '{"n":2,"no',
    });
  });

  it('throws on a corrupt middle line after yielding the records before it', async () => {
    const path = join(directory, 'corrupt.jsonl');
    await writeFile(path, `${line(0)}${line(1)}not json\n${line(3)}`);
    const seen: number[] = [];
    const failure = await (async () => {
      for await (const record of streamJsonl(path, Sequence, { chunkBytes: 4 }))
        seen.push(record.n);
    })().catch((error: unknown) => error);
    expect(seen).toEqual([0, 1]);
    expect(ValidationError.isInstance(failure)).toBe(true);
    expect((failure as Error).message).toContain(
      `line 3 of ${path} (byte offset ${line(0).length * 2})`,
    );
  });

  it('names the line and field of a schema-invalid line', async () => {
    const path = join(directory, 'invalid.jsonl');
    await writeFile(path, `${line(0)}{"n":1.5,"note":""}\n${line(2)}`);
    const failure = await readJsonl(path, Sequence).catch((error: unknown) => error);
    expect((failure as ValidationError).subject).toBe(
      `line 2 of ${path} (byte offset ${line(0).length})`,
    );
    expect((failure as ValidationError).issues.map((issue) => issue.path)).toEqual(['n']);
  });

  it.skipIf(!existsSync('/proc/self/fd'))(
    'closes the file when the consumer stops early',
    async () => {
      const path = join(directory, 'early.jsonl');
      await writeFile(path, Array.from({ length: 50 }, (_, n) => line(n)).join(''));
      const before = (await readdir('/proc/self/fd')).length;
      for await (const record of streamJsonl(path, Sequence, { chunkBytes: 16 })) {
        if (record.n === 3) break;
      }
      expect((await readdir('/proc/self/fd')).length).toBe(before);
    },
  );

  it('rejects a non-positive chunk size', () => {
    expect(() => streamJsonl('x', Sequence, { chunkBytes: 0 })).toThrow(/^chunkBytes:/);
  });

  it('fails with the file error when the file does not exist', async () => {
    await expect(readJsonl(join(directory, 'missing.jsonl'), Sequence)).rejects.toThrow(/ENOENT/);
  });
});
