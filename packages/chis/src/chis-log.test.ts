import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChisEntrySchema } from '@chi/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeEntry } from './__fixtures__/entries';
import { readChisTrajectories } from './chis-log';
import { createJsonlWriter } from './jsonl-writer';

let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'chis-log-'));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe('readChisTrajectories', () => {
  it('reads a CHIS log, groups it by trajectory and passes the torn tail and problems through', async () => {
    const path = join(directory, 'chis.jsonl');
    const writer = await createJsonlWriter({ path, schema: ChisEntrySchema, fsync: 'on-flush' });
    await writer.append(makeEntry('b', { checkpoint: 0, condition: 'baseline' }));
    await writer.append(makeEntry('a', { checkpoint: 1, condition: 'neutral' }));
    await writer.append(makeEntry('a', { checkpoint: 0, condition: 'baseline' }));
    await writer.close();
    await writeFile(path, '{"kind":"chis-en', { flag: 'a' });

    const contents = await readChisTrajectories(path);
    expect(contents.entryCount).toBe(3);
    expect(contents.tornTail).toMatchObject({ text: '{"kind":"chis-en' });
    expect(
      contents.trajectories.map((t) => [t.trajectoryId, t.entries.map((e) => e.checkpoint)]),
    ).toEqual([
      ['b', [0]],
      ['a', [0, 1]],
    ]);
    expect(contents.problems.map((problem) => problem.kind)).toEqual(['out-of-order']);
  });
});
