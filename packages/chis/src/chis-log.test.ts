import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChisEntrySchema } from '@chi/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeEntry } from './__fixtures__/entries';
import { readChisTrajectories } from './chis-log';
import { serializeJsonlLine } from './jsonl-lines';

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
    const entries = [
      makeEntry('b', { checkpoint: 0, condition: 'baseline' }),
      makeEntry('a', { checkpoint: 1, condition: 'neutral' }),
      makeEntry('a', { checkpoint: 0, condition: 'baseline' }),
    ];
    await writeFile(
      path,
      entries.map((entry) => serializeJsonlLine(ChisEntrySchema, entry, 'entry')).join(''),
    );
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
