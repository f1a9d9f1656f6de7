import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMemoryObservation, observationsOf } from '@chi/analysis';
import { readJsonl } from '@chi/chis';
import { AttemptRecordSchema } from '@chi/spec';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildFixtureRun } from '../__fixtures__/fixture-run';
import { tempDir } from '../__fixtures__/temp-dir';
import { canonicalJson, sha256Hex } from '../canonical-json';
import { scoreRun } from '../scoring/score-run';
import { parseJsonLines, readRunFolder } from './run-folder';

describe('readRunFolder', () => {
  let dir: { path: string; remove: () => Promise<void> };
  beforeAll(async () => {
    dir = await tempDir('runfolder');
    await buildFixtureRun(dir.path, { seeds: [11, 12] });
  });
  afterAll(async () => dir.remove());

  it('holds no world, request or notebook after reading, and at most one while scoring', async () => {
    const reads: string[] = [];
    const records = await readRunFolder(dir.path, { onFileRead: (path) => reads.push(path) });
    // everything was checked while reading, and nothing large is kept
    expect(reads).toEqual([]);
    const scores = scoreRun(records);
    expect(observationsOf(scores, 'memory', isMemoryObservation).length).toBeGreaterThan(0);
    const worldReads = reads.filter((path) => path.startsWith('worlds/memory/'));
    // world by world: a world is read when its block is scored and never again once the scoring
    // has moved on (so nothing of it is needed later), whatever the number of systems
    const worldsInOrder = worldReads.filter((path, index) => path !== worldReads[index - 1]);
    expect(worldsInOrder).toEqual(worldReads);
    const blocks = records.plan.blocks.filter(
      (b) => b.experiment === 'memory' || b.experiment === 'controls',
    );
    expect(worldReads.length).toBeLessThanOrEqual(blocks.length);
    expect(records.manifest.systems.length).toBeGreaterThan(1);
    // the files are read again when asked for: only the last one read is kept
    const [first, second] = [...records.memoryWorlds.keys()];
    reads.length = 0;
    records.memoryWorlds.get(first as string);
    records.memoryWorlds.get(first as string);
    records.memoryWorlds.get(second as string);
    records.memoryWorlds.get(first as string);
    expect(reads).toEqual(
      [first, second, first].map((key) => records.memoryWorlds.pathOf(key as string)),
    );
  });

  it('holds no parsed plan: each request or block is parsed from plan.json when it is reached', async () => {
    const reads: string[] = [];
    const records = await readRunFolder(dir.path, { onFileRead: (path) => reads.push(path) });
    const planReads = () => reads.filter((path) => path.startsWith('plan.json:'));
    // the whole plan was checked while reading; none of it is held parsed
    expect(planReads()).toEqual([]);
    expect(records.plan.requests.length).toBeGreaterThan(3);
    expect(planReads()).toEqual([]);
    const third = records.plan.requests[2];
    expect(records.plan.requests[2]?.requestId).toBe(third?.requestId);
    void records.plan.blocks[0];
    void records.plan.requests[0];
    expect(planReads()).toEqual([
      'plan.json:request:2',
      'plan.json:block:0',
      'plan.json:request:0',
    ]);
    const text = await readFile(join(dir.path, 'plan.json'), 'utf8');
    expect(JSON.stringify(records.plan)).toBe(JSON.stringify(JSON.parse(text)));
  });

  it('reads history worlds and behavioral items when asked for, keeping the last one only', async () => {
    const reads: string[] = [];
    const records = await readRunFolder(dir.path, { onFileRead: (path) => reads.push(path) });
    expect(reads).toEqual([]);
    const eager = await readRunFolder(dir.path);
    for (const seed of [11, 12, 11, 11]) {
      expect(records.historyWorlds.get(seed)?.seed).toBe(seed);
      expect(records.behaviorItems.get(seed)?.seed).toBe(seed);
    }
    expect(reads.map((path) => path.replace(/\.json(\.gz)?$/, ''))).toEqual(
      ['w11', 'w11', 'w12', 'w12', 'w11', 'w11'].map(
        (name, index) => `worlds/${index % 2 === 0 ? 'history' : 'behavior'}/${name}`,
      ),
    );
    expect(records.historyWorlds.get(13)).toBeUndefined();
    expect([...records.behaviorItems.keys()]).toEqual([11, 12]);
    expect(new Map(records.historyWorlds)).toEqual(new Map(eager.historyWorlds));
  });

  it('holds no reply text: each is read from its line of the log when scoring asks for it, once', async () => {
    const reads: string[] = [];
    const records = await readRunFolder(dir.path, { onFileRead: (path) => reads.push(path) });
    const replies = records.attempts.filter((a) => typeof a.result?.text === 'string');
    expect(replies.length).toBeGreaterThan(0);
    // asking for the texts above read each one from the file: none was kept
    expect(reads.filter((path) => path.startsWith('attempts.jsonl:'))).toHaveLength(replies.length);
    reads.length = 0;
    const scores = scoreRun(records);
    expect(observationsOf(scores, 'memory', isMemoryObservation).length).toBeGreaterThan(0);
    const replyReads = reads.filter((path) => path.startsWith('attempts.jsonl:'));
    expect(replyReads.length).toBeGreaterThan(0);
    expect(new Set(replyReads).size).toBe(replyReads.length);
    // the text read on demand is the text in the log, and the record serialises as it is written
    const text = await readFile(join(dir.path, 'attempts.jsonl'), 'utf8');
    const lines = text.split('\n').slice(0, -1);
    records.attempts.forEach((attempt, index) => {
      const parsed = AttemptRecordSchema.parse(JSON.parse(lines[index] as string));
      expect(JSON.stringify(attempt)).toBe(JSON.stringify(parsed));
    });
  });

  it('reads every part of the layout and hashes the manifest canonically', async () => {
    const records = await readRunFolder(dir.path);
    const manifestText = await readFile(join(dir.path, 'manifest.json'), 'utf8');
    expect(records.manifestSha256).toBe(sha256Hex(manifestText));
    expect(records.manifestSha256).toBe(sha256Hex(canonicalJson(records.manifest)));
    expect([...records.memoryWorlds.keys()].sort()).toEqual([
      'w11-n16',
      'w11-n8',
      'w12-n16',
      'w12-n8',
    ]);
    expect([...records.historyWorlds.keys()]).toEqual([11, 12]);
    expect(records.requests.size).toBe(records.plan.requests.length);
    expect(records.attempts).toHaveLength(2 * records.plan.requests.length);
    expect(records.prompts.map((p) => p.path)).toContain('prompts/memory-probe@1.txt');
    expect(records.notebooks.has('notebooks/keeper/memory/w11-n8.json')).toBe(true);
    expect(records.status?.state).toBe('completed');
  });

  it('keeps the request hashes as a view of the request index and reads CHIS logs when asked for', async () => {
    const entry = {
      kind: 'chis-entry',
      trajectoryId: 'keeper.history.w11.A',
      systemId: 'keeper',
      evidenceClass: 'scripted_baseline',
      worldSeed: 11,
      history: 'A',
      checkpoint: 0,
      condition: 'baseline',
      recordedAt: '2026-12-02T02:32:47.017Z',
      eventCount: 0,
      scheduledOperations: 1,
      elapsedWallMs: 0,
      profile: { accuracy: 1 },
      decisionVector: [0.5],
      chi: null,
      state: null,
      resources: {
        requests: 1,
        promptTokens: null,
        completionTokens: null,
        costUsd: 0,
        latencyMs: 0,
      },
    };
    const chisDir = join(dir.path, 'chis');
    await mkdir(chisDir, { recursive: true });
    await writeFile(join(chisDir, 'keeper.jsonl'), `${JSON.stringify(entry)}\n`);
    try {
      const reads: string[] = [];
      const records = await readRunFolder(dir.path, { onFileRead: (path) => reads.push(path) });
      // checked while reading, kept only as a path, read again when asked for
      expect(reads).toEqual([]);
      expect([...records.chis.keys()]).toEqual(['keeper']);
      expect(records.chis.get('keeper')).toEqual([entry]);
      expect(reads).toEqual(['chis/keeper.jsonl']);
      expect(new Map(records.requestHashes)).toEqual(
        new Map(
          [...records.requests].map(([requestId, request]) => [requestId, request.requestSha256]),
        ),
      );
      expect(records.requestHashes.size).toBe(records.plan.requests.length);
      expect(records.requestHashes.get('no-such-request')).toBeUndefined();
      // a damaged CHIS log is refused when the folder is read, not when it is asked for
      await writeFile(join(chisDir, 'keeper.jsonl'), '{"kind":"chis-entry"}\n');
      await expect(readRunFolder(dir.path)).rejects.toThrow(/chis\/keeper\.jsonl/);
    } finally {
      await rm(chisDir, { recursive: true, force: true });
    }
  });

  it('drops a torn final JSONL line (a crash mid-write) and nothing else', async () => {
    const path = join(dir.path, 'attempts.jsonl');
    const before = await readFile(path, 'utf8');
    await appendFile(path, '{"kind":"attempt","manifestSha');
    const records = await readRunFolder(dir.path);
    expect(records.attempts).toHaveLength(before.trim().split('\n').length);
    await writeFile(path, before);
  });

  it('names the file and line of a bad record that is not the last', () => {
    const good = '{"kind":"nope"}';
    expect(() =>
      parseJsonLines(`not json\n${good}\n`, 'attempts.jsonl', AttemptRecordSchema),
    ).toThrow(/line 1 of attempts\.jsonl \(byte offset 0\)[\s\S]*not valid JSON/);
    expect(() =>
      parseJsonLines(`${good}\n${good}\n`, 'attempts.jsonl', AttemptRecordSchema),
    ).toThrow(/line 1 of attempts\.jsonl/);
  });

  it('refuses a world whose file name disagrees with its content', async () => {
    const path = join(dir.path, 'worlds/memory/w11-n8.json');
    const text = await readFile(path, 'utf8');
    await writeFile(join(dir.path, 'worlds/memory/w99-n8.json'), text);
    await expect(readRunFolder(dir.path)).rejects.toThrow(
      /worlds\/memory\/w99-n8\.json: file name says seed 99 load 8, the world says seed 11 load 8/,
    );
    const { rm } = await import('node:fs/promises');
    await rm(join(dir.path, 'worlds/memory/w99-n8.json'));
  });
});

describe('parseJsonLines reads a damaged log as the runner does', () => {
  const Line = z.strictObject({ n: z.int() });
  it("keeps the same records as the runner's reader (@chi/chis readJsonl) for any torn tail", async () => {
    const folder = await mkdtemp(join(tmpdir(), 'chi-jsonl-'));
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.integer({ min: 0, max: 999 }), { maxLength: 5 }),
          fc.oneof(
            fc.constant(''),
            // A complete record whose newline was never written: torn although it parses.
            fc.integer({ min: 0, max: 999 }).map((n) => JSON.stringify({ n })),
            // A prefix of a record cut mid-append.
            fc.integer({ min: 0, max: 999 }).map((n) => JSON.stringify({ n }).slice(0, 4)),
            fc.constant('{"n":'),
          ),
          async (values, tail) => {
            const text = `${values.map((n) => `${JSON.stringify({ n })}\n`).join('')}${tail}`;
            const path = join(folder, 'log.jsonl');
            await writeFile(path, text);
            const runner = (await readJsonl(path, Line)).records;
            expect(parseJsonLines(text, 'log.jsonl', Line)).toEqual(runner);
            expect(runner).toHaveLength(values.length);
          },
        ),
        { seed: 14, numRuns: 60 },
      );
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
