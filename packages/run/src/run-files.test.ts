import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { RunFolderDamagedError } from '@chi/spec';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { canonicalJson, sha256Hex } from './canonical-json';
import {
  isPublishedRunFile,
  RUN_FILES,
  renderRunFileTable,
  runFileOf,
  runFolderPaths,
} from './run-files';
import { decodePayload, detectRequestLayout, encodePayload, openRunFolder } from './run-folder';

const scratch = mkdtempSync(join(tmpdir(), 'chi-run-files-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the run-folder layout table', () => {
  it('is the table of packages/pilot/RUN-FOLDER.md, between its run-files markers', () => {
    const doc = readFileSync(
      join(import.meta.dirname, '..', '..', 'pilot', 'RUN-FOLDER.md'),
      'utf8',
    );
    const table = /<!-- run-files:begin -->\n([\s\S]*?)\n<!-- run-files:end -->/.exec(doc)?.[1];
    expect(table).toBe(renderRunFileTable());
  });

  it('classifies every path the paths builder makes, and nothing outside the layout', () => {
    const paths = runFolderPaths('/r');
    const relative = (path: string) => path.slice('/r/'.length);
    const hash = 'a'.repeat(64);
    expect(
      [
        paths.manifest,
        paths.prompt('memory-probe', '1'),
        paths.memoryWorld(11, 32),
        paths.historyWorld(11),
        paths.behaviorWorld(11),
        paths.payload(hash),
        paths.requestIndex,
        paths.legacyRequest('perfect.history.w11.A2.c1.probe'),
        paths.memoryNotebook('perfect', 11, 32),
        paths.historyNotebook('perfect', 11, 'A2', 3),
        paths.chis('perfect'),
      ].map((path) => runFileOf(relative(path))?.id),
    ).toEqual([
      'manifest',
      'prompt',
      'memoryWorld',
      'historyWorld',
      'behaviorWorld',
      'payload',
      'requestIndex',
      'legacyRequest',
      'memoryNotebook',
      'historyNotebook',
      'chis',
    ]);
    // the sequential divergence executor's files are gone with it
    expect(runFileOf('calls.jsonl')).toBeUndefined();
    expect(runFileOf('sends.jsonl')).toBeUndefined();
    // a divergence run's CHIS log is the pilot's chis/<systemId>.jsonl
    expect(runFileOf('chis.jsonl')).toBeUndefined();
    expect(runFileOf('worlds/memory/w11-n32.json')?.id).toBe('memoryWorld'); // layout 0.1
    expect(runFileOf('payloads/not-a-hash.json.gz')).toBeUndefined();
    expect(runFileOf('scores/memory.csv')).toBeUndefined();
    expect(isPublishedRunFile('smoke-ledger.jsonl')).toBe(false);
    expect(isPublishedRunFile('release/SHA256SUMS')).toBe(false);
    expect(isPublishedRunFile(`payloads/${hash}.json.gz`)).toBe(true);
    expect(new Set(RUN_FILES.map((entry) => entry.id)).size).toBe(RUN_FILES.length);
  });
});

describe('payloads', () => {
  const messages = [
    { role: 'system' as const, content: 'Keep notes.' },
    { role: 'user' as const, content: 'é \u{1F600} "quoted"' },
  ];

  it('are named by the SHA-256 of the canonical JSON, which gunzip gives back byte for byte', () => {
    const payload = encodePayload(messages);
    expect(payload.sha256).toBe(sha256Hex(canonicalJson(messages)));
    expect(gunzipSync(payload.gzip).toString('utf8')).toBe(canonicalJson(messages));
    expect(decodePayload(payload.gzip, payload.sha256, 'p')).toEqual(messages);
  });

  it('are the same bytes for the same messages (a property over arbitrary message texts)', () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { minLength: 1, maxLength: 4 }), (texts) => {
        const list = texts.map((content) => ({ role: 'user' as const, content }));
        const a = encodePayload(list);
        const b = encodePayload(list.map((m) => ({ ...m })));
        expect(Buffer.from(a.gzip).equals(Buffer.from(b.gzip))).toBe(true);
        expect(decodePayload(a.gzip, a.sha256, 'p')).toEqual(list);
      }),
      { numRuns: 50 },
    );
  });

  it('refuse altered content under the old name, and bytes that are not gzip', () => {
    const original = encodePayload(messages);
    const altered = encodePayload([{ role: 'user', content: 'other' }]);
    expect(() => decodePayload(altered.gzip, original.sha256, 'payloads/x.json.gz')).toThrow(
      RunFolderDamagedError,
    );
    expect(() => decodePayload(altered.gzip, original.sha256, 'payloads/x.json.gz')).toThrow(
      `not to its name ${original.sha256}: the payload was altered`,
    );
    expect(() => decodePayload(new Uint8Array([1, 2, 3]), original.sha256, 'x')).toThrow(
      /not gzip/,
    );
  });
});

describe('openRunFolder', () => {
  it('tells layout 0.1 (requests/ only) from 0.2 (requests.jsonl, or a new folder)', () => {
    const fresh = join(scratch, 'fresh');
    mkdirSync(fresh);
    expect(detectRequestLayout(runFolderPaths(fresh))).toBe('0.2');
    const legacy = join(scratch, 'legacy');
    mkdirSync(join(legacy, 'requests'), { recursive: true });
    expect(openRunFolder(legacy).requestLayout).toBe('0.1');
    writeFileSync(join(legacy, 'requests.jsonl'), '');
    expect(openRunFolder(legacy).requestLayout).toBe('0.2');
  });

  it('names a payload that requests.jsonl lists but the folder lacks', async () => {
    const dir = join(scratch, 'missing');
    mkdirSync(dir);
    const payload = encodePayload([{ role: 'user', content: 'hi' }]);
    const line = {
      kind: 'request-index',
      requestId: 'perfect.memory.w1.n32.encode',
      systemId: 'perfect',
      blockId: 'memory.w1.n32',
      task: 'memory_encode',
      template: { name: 'memory-encode', version: '1' },
      maxOutputTokens: 10,
      requestSha256: payload.sha256,
      inputBytes: 30,
    };
    writeFileSync(join(dir, 'requests.jsonl'), `${JSON.stringify(line)}\n`);
    const folder = openRunFolder(dir);
    await expect(folder.readRequest(line.requestId)).rejects.toThrow(
      `payloads/${payload.sha256}.json.gz: missing, but requests.jsonl names it`,
    );
    await folder.writePayload([{ role: 'user', content: 'hi' }]);
    expect((await folder.readRequest(line.requestId))?.messages).toEqual([
      { role: 'user', content: 'hi' },
    ]);
    // the synchronous reads (for lazy per-key readers) give the same request and file
    expect(folder.readRequestSync(line.requestId)).toEqual(
      await folder.readRequest(line.requestId),
    );
    expect(folder.requestFile(line.requestId)).toBe(`payloads/${payload.sha256}.json.gz`);
    expect(folder.requestFile('nobody')).toBeUndefined();
  });
});
