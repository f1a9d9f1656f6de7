import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AttemptRecordSchema } from '@chi/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixtureRun } from './__fixtures__/fixture-run';
import { tempDir } from './__fixtures__/temp-dir';
import { canonicalJson, sha256Hex } from './canonical-json';
import { parseJsonLines, readRunFolder } from './run-folder';

describe('readRunFolder', () => {
  let dir: { path: string; remove: () => Promise<void> };
  beforeAll(async () => {
    dir = await tempDir('runfolder');
    await buildFixtureRun(dir.path, { seeds: [11, 12] });
  });
  afterAll(async () => dir.remove());

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
    expect(records.notebooks.some((n) => n.path === 'notebooks/keeper/memory/w11-n8.json')).toBe(
      true,
    );
    expect(records.status?.state).toBe('completed');
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
