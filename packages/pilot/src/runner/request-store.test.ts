import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { openRunFolder, sha256Hex } from '@chi/run';
import { canonicalPayload, gzipText } from '@chi/run/internal';
import type { RenderedRequest } from '@chi/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { openRequestStore } from './request-store';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempRun(): string {
  const dir = mkdtempSync(join(tmpdir(), 'chi-request-store-'));
  dirs.push(dir);
  return dir;
}

const messages = [
  { role: 'system' as const, content: 'You keep notes.' },
  { role: 'user' as const, content: 'RECORDS: a=1' },
];
const canonical =
  '[{"content":"You keep notes.","role":"system"},{"content":"RECORDS: a=1","role":"user"}]';

function request(systemId: string): RenderedRequest {
  return {
    kind: 'rendered-request',
    requestId: `${systemId}.memory.w1.n32.encode`,
    systemId,
    blockId: 'memory.w1.n32',
    task: 'memory_encode',
    template: { name: 'memory-encode', version: '1' },
    messages,
    maxOutputTokens: 100,
    requestSha256: sha256Hex(canonical),
    inputBytes: 90,
  };
}

describe('openRequestStore', () => {
  it('stores a prompt sent to two systems once, named by the SHA-256 of its canonical JSON', async () => {
    const dir = tempRun();
    const store = await openRequestStore(dir);
    expect(store.layout).toBe('0.2');
    await store.write(request('perfect'), canonicalPayload(messages));
    await store.write(request('abstainer'), canonicalPayload(messages));
    await store.close();
    expect(readdirSync(join(dir, 'payloads'))).toEqual([`${sha256Hex(canonical)}.json.gz`]);
    const bytes = readFileSync(join(dir, 'payloads', `${sha256Hex(canonical)}.json.gz`));
    // standard gzip (what zcat reads), no file name, modification time 0, OS byte 3
    expect([...bytes.subarray(0, 10)]).toEqual([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);
    expect(gunzipSync(bytes).toString('utf8')).toBe(canonical);
    // compressed off the main thread, byte for byte what the synchronous gzip gives
    expect([...bytes]).toEqual([...gzipText(canonical)]);
    expect(readFileSync(join(dir, 'requests.jsonl'), 'utf8').trimEnd().split('\n')).toHaveLength(2);
    const folder = openRunFolder(dir);
    expect(await folder.readRequest('abstainer.memory.w1.n32.encode')).toEqual(
      request('abstainer'),
    );
    expect(await folder.readRequest('nobody.memory.w1.n32.encode')).toBeNull();
  });

  it('keeps writing layout 0.1 in a folder that holds requests/ (a run resumed from an earlier version)', async () => {
    const dir = tempRun();
    mkdirSync(join(dir, 'requests'));
    const store = await openRequestStore(dir);
    expect(store.layout).toBe('0.1');
    await store.write(request('perfect'), canonicalPayload(messages));
    await store.close();
    expect(existsSync(join(dir, 'payloads'))).toBe(false);
    expect(existsSync(join(dir, 'requests.jsonl'))).toBe(false);
    expect(
      JSON.parse(readFileSync(join(dir, 'requests', 'perfect.memory.w1.n32.encode.json'), 'utf8')),
    ).toEqual(request('perfect'));
    expect(await openRunFolder(dir).readRequest('perfect.memory.w1.n32.encode')).toEqual(
      request('perfect'),
    );
  });
});
