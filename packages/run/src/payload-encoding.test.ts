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
