import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openRunFolder } from '@chi/run';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../__fixtures__/temp-dir';
import { RequestIndexOnDisk } from './request-index-on-disk';

function line(requestId: string, sha: string, inputBytes: number): string {
  return `${JSON.stringify({
    kind: 'request-index',
    requestId,
    systemId: 'keeper',
    blockId: 'memory.w1.n8',
    task: 'memory_encode',
    template: { name: 'memory-encode', version: '1' },
    maxOutputTokens: 64,
    requestSha256: sha.repeat(64),
    inputBytes,
  })}\n`;
}

describe('RequestIndexOnDisk', () => {
  let dir: { path: string; remove: () => Promise<void> };
  beforeEach(async () => {
    dir = await tempDir('request-index');
  });
  afterEach(async () => dir.remove());

  it("locates the lines of requests.jsonl with @chi/run's rule: the last line per ID, a torn tail ignored", async () => {
    const path = join(dir.path, 'requests.jsonl');
    await writeFile(
      path,
      `${line('a', '1', 10)}${line('b', '2', 20)}${line('a', '3', 30)}{"kind":"request-index","requ`,
    );
    const index = await RequestIndexOnDisk.read(path);
    const expected = openRunFolder(dir.path).readRequestIndexSync();
    expect([...index.ids.keys()]).toEqual([...expected.keys()]);
    for (const requestId of expected.keys()) {
      expect(index.entry(requestId)).toEqual(expected.get(requestId));
      expect(index.sha256(requestId)).toBe(expected.get(requestId)?.requestSha256);
    }
    expect(index.entry('a')?.inputBytes).toBe(30);
    expect(index.entry('c')).toBeUndefined();
    expect(index.sha256('c')).toBeUndefined();
  });

  it('keeps every request of a long index (its arrays grow)', async () => {
    const path = join(dir.path, 'requests.jsonl');
    const ids = Array.from({ length: 2500 }, (_, i) => `r${i}`);
    await writeFile(path, ids.map((id, i) => line(id, (i % 16).toString(16), i)).join(''));
    const index = await RequestIndexOnDisk.read(path);
    expect(index.ids.size).toBe(2500);
    expect(index.entry('r2499')?.inputBytes).toBe(2499);
    expect(index.sha256('r17')).toBe('1'.repeat(64));
  });
});
