import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { canonicalJson, sha256Hex } from './canonical-json';
import { canonicalPayload, encodePayload, gzipText, gzipTextAsync } from './run-folder';

/** A few MB of varied text (records, non-ASCII, long runs), like a load-10000 prompt. */
function largeText(): string {
  const lines: string[] = [];
  for (let i = 0; i < 60_000; i += 1)
    lines.push(
      `{"key":"k${(i * 7919) % 10007}","value":"${(i * 2654435761) >>> 0}","note":"é✓${i % 97}"}`,
    );
  return lines.join(',\n');
}

describe('payload encoding fast path', () => {
  it('gzipTextAsync gives the same bytes as gzipText (small, large and empty texts)', async () => {
    for (const text of ['', '[]', largeText()]) {
      const asyncBytes = await gzipTextAsync(text);
      expect(Buffer.from(asyncBytes).equals(Buffer.from(gzipText(text)))).toBe(true);
      expect(gunzipSync(asyncBytes).toString('utf8')).toBe(text);
    }
  });

  it('canonicalPayload is the text and address encodePayload stores', () => {
    const messages = [
      { role: 'system' as const, content: 'You keep notes.' },
      { role: 'user' as const, content: largeText() },
    ];
    const payload = canonicalPayload(messages);
    expect(payload.text).toBe(canonicalJson(messages));
    expect(payload.sha256).toBe(sha256Hex(payload.text));
    expect(payload.sha256).toBe(encodePayload(messages).sha256);
  });
});

describe('decoded payloads kept by a run folder', () => {
  it('reads a payload read before as the same, frozen messages, and stays correct past its few entries', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { openRunFolder } = await import('./run-folder');
    const dir = mkdtempSync(join(tmpdir(), 'chi-payload-cache-'));
    try {
      const folder = openRunFolder(dir);
      const lists = Array.from({ length: 7 }, (_, i) => [
        { role: 'user' as const, content: `prompt ${i}` },
      ]);
      const addresses = await Promise.all(lists.map((messages) => folder.writePayload(messages)));
      const first = folder.readPayloadSync(addresses[0] as string);
      expect(folder.readPayloadSync(addresses[0] as string)).toBe(first);
      expect(Object.isFrozen(first) && Object.isFrozen(first[0])).toBe(true);
      expect(() =>
        (first as { role: string; content: string }[]).push(first[0] as never),
      ).toThrow();
      for (const [i, address] of addresses.entries())
        expect(folder.readPayloadSync(address)).toEqual(lists[i]);
      // the first entry was dropped by then: read (and checked) from its file again
      expect(folder.readPayloadSync(addresses[0] as string)).not.toBe(first);
      expect(folder.readPayloadSync(addresses[0] as string)).toEqual(lists[0]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
