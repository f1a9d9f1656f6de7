import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readJsonl } from '@chi/chis';
import { ChiError, ChisEntrySchema, InvalidArgumentError, ValidationError } from '@chi/spec';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { nodeArgsFor } from '../../../tooling/vitest/child-bundle';
import { startNode } from '../../../tooling/vitest/child-process';
import { chisEntryArbitrary } from '../../chis/src/__fixtures__/chis-entry-arbitrary';
import { makeEntry } from '../../chis/src/__fixtures__/entries';
import { createJsonlWriter } from './jsonl-writer';

const Sequence = z.strictObject({ n: z.int(), note: z.string() });

let directory: string;
let fileCounter = 0;
const freshPath = () => join(directory, `log-${fileCounter++}.jsonl`);

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'chis-writer-'));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe('createJsonlWriter', () => {
  it('appends validated records as lines, creating the file', async () => {
    const path = freshPath();
    const writer = await createJsonlWriter({ path, schema: Sequence, fsync: 'every-line' });
    await writer.append({ n: 1, note: 'first' });
    await writer.append({ n: 2, note: 'zweite – ✓' });
    await writer.close();
    expect(await readFile(path, 'utf8')).toBe(
      '{"n":1,"note":"first"}\n{"n":2,"note":"zweite – ✓"}\n',
    );
    expect(writer.recoveredTornTail).toBeNull();
  });

  it('rejects an invalid record with a ValidationError naming the field, and writes nothing', async () => {
    const path = freshPath();
    const writer = await createJsonlWriter({ path, schema: ChisEntrySchema, fsync: 'every-line' });
    const bad = {
      ...makeEntry('t', { checkpoint: 1, condition: 'neutral' }),
      decisionVector: [0, 2],
    };
    const error = await writer.append(bad).catch((caught: unknown) => caught);
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as ValidationError).issues.map((issue) => issue.path)).toEqual([
      'decisionVector[1]',
    ]);
    await writer.append(makeEntry('t', { checkpoint: 1, condition: 'neutral' }));
    await writer.close();
    expect((await readJsonl(path, ChisEntrySchema)).records).toHaveLength(1);
  });

  it('serializes concurrent appends in call order without interleaving lines', async () => {
    const path = freshPath();
    const writer = await createJsonlWriter({ path, schema: Sequence, fsync: 'every-line' });
    const long = 'x'.repeat(5000);
    await Promise.all(
      Array.from({ length: 300 }, (_, n) =>
        writer.append({ n, note: n % 7 === 0 ? long : `${n}` }),
      ),
    );
    await writer.close();
    const { records, tornTail } = await readJsonl(path, Sequence);
    expect(tornTail).toBeNull();
    expect(records.map((record) => record.n)).toEqual(Array.from({ length: 300 }, (_, n) => n));
  });

  it('resolves each append only after its line is in the file', async () => {
    const path = freshPath();
    const writer = await createJsonlWriter({ path, schema: Sequence, fsync: 'on-flush' });
    for (let n = 0; n < 5; n++) {
      await writer.append({ n, note: '' });
      // Read by another handle while the writer is still open.
      expect((await readJsonl(path, Sequence)).records).toHaveLength(n + 1);
    }
    await writer.flush();
    await writer.close();
  });

  it('refuses appends and flushes after close, and close is idempotent', async () => {
    const writer = await createJsonlWriter({
      path: freshPath(),
      schema: Sequence,
      fsync: 'on-flush',
    });
    await writer.close();
    await expect(writer.append({ n: 1, note: '' })).rejects.toThrow(/is closed/);
    await expect(writer.flush()).rejects.toThrow(/is closed/);
    await expect(writer.close()).resolves.toBeUndefined();
  });

  it('allows one writer per file per process', async () => {
    const path = freshPath();
    const first = await createJsonlWriter({ path, schema: Sequence, fsync: 'on-flush' });
    const refused = await createJsonlWriter({ path, schema: Sequence, fsync: 'on-flush' }).catch(
      (e: unknown) => e,
    );
    expect(InvalidArgumentError.isInstance(refused)).toBe(true);
    expect((refused as InvalidArgumentError).field).toBe('path');
    await first.close();
    const second = await createJsonlWriter({ path, schema: Sequence, fsync: 'on-flush' });
    await second.close();
  });

  it('appends after existing records when reopened', async () => {
    const path = freshPath();
    const first = await createJsonlWriter({ path, schema: Sequence, fsync: 'every-line' });
    await first.append({ n: 1, note: '' });
    await first.close();
    const second = await createJsonlWriter({ path, schema: Sequence, fsync: 'every-line' });
    await second.append({ n: 2, note: '' });
    await second.close();
    expect((await readJsonl(path, Sequence)).records.map((r) => r.n)).toEqual([1, 2]);
  });

  it('rejects bad options with the field named', async () => {
    await expect(
      createJsonlWriter({ path: '', schema: Sequence, fsync: 'every-line' }),
    ).rejects.toThrow(/^path:/);
    await expect(
      createJsonlWriter({
        path: freshPath(),
        schema: Sequence,
        fsync: 'sometimes' as 'every-line',
      }),
    ).rejects.toThrow(/^fsync: expected 'every-line' or 'on-flush', found "sometimes"/);
  });

  it('refuses to append to a log that is corrupt before its torn tail', async () => {
    const path = freshPath();
    await writeFile(path, '{"n":1,"note":""}\n{garbage\n{"n":3,');
    await expect(createJsonlWriter({ path, schema: Sequence, fsync: 'on-flush' })).rejects.toThrow(
      /byte offset 18 .*refusing to append/s,
    );
    // The path is released after the refusal.
    await writeFile(path, '');
    await (await createJsonlWriter({ path, schema: Sequence, fsync: 'on-flush' })).close();
  });

  it.skipIf(!existsSync('/dev/full'))(
    'fails for good after a write error: later appends reject too',
    async () => {
      const writer = await createJsonlWriter({
        path: '/dev/full',
        schema: Sequence,
        fsync: 'on-flush',
      });
      const first = await writer.append({ n: 1, note: '' }).catch((e: unknown) => e);
      expect(ChiError.isInstance(first)).toBe(true);
      expect((first as Error).message).toMatch(/failed and accepts no more records: .*ENOSPC/);
      await expect(writer.append({ n: 2, note: '' })).rejects.toBe(first);
      await expect(writer.close()).rejects.toBe(first);
    },
  );
});

describe('crash safety: a log truncated at every byte of its last line', () => {
  const entries = [
    makeEntry('traj-1', { checkpoint: 0, condition: 'baseline', decisionVector: [0.5, 0.5] }),
    makeEntry('traj-1', { checkpoint: 1, condition: 'history', decisionVector: [0, 1] }),
    // Multi-byte characters so that some cuts fall inside a UTF-8 sequence.
    makeEntry('traj-1', {
      checkpoint: 2,
      condition: 'neutral – ümlaut 🙂',
      decisionVector: [0, null],
    }),
  ];
  const replacement = makeEntry('traj-1', {
    checkpoint: 3,
    condition: 'neutral',
    decisionVector: [1, 1],
  });

  it('reads the complete records, reports the fragment as torn, and a reopened writer never merges it', async () => {
    const path = freshPath();
    const writer = await createJsonlWriter({ path, schema: ChisEntrySchema, fsync: 'every-line' });
    for (const entry of entries) await writer.append(entry);
    await writer.close();
    const full = await readFile(path);
    const lastLineStart = full.subarray(0, -1).lastIndexOf(0x0a) + 1;
    expect(lastLineStart).toBeGreaterThan(0);
    const replacementLine = Buffer.from(`${JSON.stringify(replacement)}\n`);

    for (let cut = lastLineStart; cut <= full.length; cut++) {
      await writeFile(path, full.subarray(0, cut));
      const complete = cut === full.length;
      const { records, tornTail } = await readJsonl(path, ChisEntrySchema, { chunkBytes: 7 });
      expect(records).toEqual(complete ? entries : entries.slice(0, 2));
      if (cut === lastLineStart || complete) {
        expect(tornTail).toBeNull();
      } else {
        expect(tornTail).toEqual({
          byteOffset: lastLineStart,
          byteLength: cut - lastLineStart,
          text: new TextDecoder().decode(full.subarray(lastLineStart, cut)),
        });
      }

      const reopened = await createJsonlWriter({
        path,
        schema: ChisEntrySchema,
        fsync: 'on-flush',
      });
      expect(reopened.recoveredTornTail).toEqual(tornTail);
      await reopened.append(replacement);
      await reopened.close();
      const kept = complete ? full : full.subarray(0, lastLineStart);
      expect(Buffer.compare(await readFile(path), Buffer.concat([kept, replacementLine]))).toBe(0);
      const after = await readJsonl(path, ChisEntrySchema);
      expect(after.tornTail).toBeNull();
      expect(after.records).toEqual([...(complete ? entries : entries.slice(0, 2)), replacement]);
    }
  });

  it('treats a newline-terminated garbage last line (zeros from a lost block) as torn, and truncates it', async () => {
    const path = freshPath();
    const good = '{"n":1,"note":""}\n';
    await writeFile(path, Buffer.concat([Buffer.from(good), Buffer.alloc(9), Buffer.from('\n')]));
    expect((await readJsonl(path, Sequence)).tornTail).toEqual({
      byteOffset: good.length,
      byteLength: 10,
      text: '\0'.repeat(9),
    });
    const writer = await createJsonlWriter({ path, schema: Sequence, fsync: 'every-line' });
    expect(writer.recoveredTornTail?.byteLength).toBe(10);
    await writer.append({ n: 2, note: '' });
    await writer.close();
    expect(await readFile(path, 'utf8')).toBe(`${good}{"n":2,"note":""}\n`);
  });

  it('handles a torn tail longer than the backwards scan chunk', async () => {
    const path = freshPath();
    const good = '{"n":1,"note":""}\n';
    const fragment = `{"n":2,"note":"${'y'.repeat(200_000)}`;
    await writeFile(path, good + fragment);
    const writer = await createJsonlWriter({ path, schema: Sequence, fsync: 'on-flush' });
    expect(writer.recoveredTornTail).toEqual({
      byteOffset: good.length,
      byteLength: fragment.length,
      text: fragment,
    });
    await writer.close();
    await truncate(path, good.length);
    expect(await readFile(path, 'utf8')).toBe(good);
  });
});

describe('crash safety: a writer process killed with SIGKILL', () => {
  it('keeps every acknowledged line, and the log stays readable and appendable', async () => {
    const path = freshPath();
    const packageDirectory = dirname(dirname(fileURLToPath(import.meta.url)));
    const fixture = join(packageDirectory, 'src/__fixtures__/append-until-killed.ts');
    const child = startNode([...(await nodeArgsFor(fixture)), path], {
      cwd: packageDirectory,
      stderr: 'inherit',
    });
    // the last number on a whole line of stdout: the writer has acknowledged that line
    const lastAcknowledged = (stdout: string): number => {
      const lines = stdout.split('\n');
      lines.pop(); // a line still being written, or ''
      return lines.length === 0 ? -1 : Number(lines.at(-1));
    };
    await child.until('stdout', (stdout) => lastAcknowledged(stdout) >= 400);
    expect(await child.stop('SIGKILL')).toBe('SIGKILL');
    const acknowledged = lastAcknowledged(child.stdout());
    const Numbered = z.strictObject({ n: z.int(), padding: z.string() });
    const { records } = await readJsonl(path, Numbered);
    expect(records.length).toBeGreaterThan(acknowledged);
    expect(records.map((record) => record.n)).toEqual(records.map((_, index) => index));
    const writer = await createJsonlWriter({ path, schema: Numbered, fsync: 'every-line' });
    await writer.append({ n: records.length, padding: '' });
    await writer.close();
    expect((await readJsonl(path, Numbered)).records).toHaveLength(records.length + 1);
  });
});

describe('round trip', () => {
  it('write-then-read returns every valid CHIS entry unchanged', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(chisEntryArbitrary, { minLength: 1, maxLength: 6 }),
        async (generated) => {
          const path = freshPath();
          const writer = await createJsonlWriter({
            path,
            schema: ChisEntrySchema,
            fsync: 'on-flush',
          });
          for (const entry of generated) await writer.append(entry);
          await writer.close();
          const { records, tornTail } = await readJsonl(path, ChisEntrySchema);
          expect(tornTail).toBeNull();
          expect(records).toEqual(generated);
          await rm(path);
        },
      ),
      { numRuns: 150 },
    );
  });
});
