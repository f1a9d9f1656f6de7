import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyNotebookCap, emptyNotebook, toWellFormed, utf8ByteLength } from './notebook';

const encoder = new TextEncoder();

describe('applyNotebookCap', () => {
  it('keeps text within the cap unchanged', () => {
    const kept = applyNotebookCap('hello', 5);
    expect(kept).toMatchObject({
      text: 'hello',
      bytes: 5,
      originalBytes: 5,
      truncated: false,
      capBytes: 5,
    });
    expect(kept.sha256).toBe('2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824');
  });

  it('cuts ASCII exactly at the cap', () => {
    expect(applyNotebookCap('abcdef', 4)).toMatchObject({
      text: 'abcd',
      bytes: 4,
      originalBytes: 6,
      truncated: true,
    });
  });

  it('moves the cut back to the start of a code point that would straddle the cap', () => {
    // 'a' (1) + '€' (3 bytes: e2 82 ac) + 'b' (1) = 5 bytes
    expect(applyNotebookCap('a€b', 1)).toMatchObject({ text: 'a', bytes: 1, truncated: true });
    expect(applyNotebookCap('a€b', 2)).toMatchObject({ text: 'a', bytes: 1, truncated: true });
    expect(applyNotebookCap('a€b', 3)).toMatchObject({ text: 'a', bytes: 1, truncated: true });
    expect(applyNotebookCap('a€b', 4)).toMatchObject({ text: 'a€', bytes: 4, truncated: true });
    // a 4-byte code point (U+1F600) straddling every position
    expect(applyNotebookCap('x😀', 4)).toMatchObject({ text: 'x', bytes: 1, originalBytes: 5 });
    expect(applyNotebookCap('x😀', 5)).toMatchObject({ text: 'x😀', bytes: 5, truncated: false });
  });

  it('makes text well-formed like String.prototype.toWellFormed', () => {
    expect(toWellFormed('a\ud800b\udc00c\ud83d\ude00')).toBe('a\ufffdb\ufffdc\ud83d\ude00');
  });

  it('replaces lone surrogates with U+FFFD before measuring', () => {
    const kept = applyNotebookCap('a\ud800b', 100);
    expect(kept.text).toBe('a\ufffdb');
    expect(kept.originalBytes).toBe(5);
  });

  it('keeps everything when the cap is null (declared reference condition only)', () => {
    const long = 'z'.repeat(10_000);
    expect(applyNotebookCap(long, null)).toMatchObject({
      bytes: 10_000,
      truncated: false,
      capBytes: null,
    });
  });

  it('defaults to the 6000-byte protocol cap', () => {
    const kept = applyNotebookCap('é'.repeat(3001)); // 6002 bytes
    expect(kept).toMatchObject({
      bytes: 6000,
      originalBytes: 6002,
      truncated: true,
      capBytes: 6000,
    });
  });

  it('rejects a negative or fractional cap, naming the field', () => {
    expect(() => applyNotebookCap('a', -1)).toThrow(/capBytes: expected a non-negative integer/);
    expect(() => applyNotebookCap('a', 1.5)).toThrow(/capBytes/);
  });

  it('gives the empty notebook', () => {
    expect(emptyNotebook()).toMatchObject({
      text: '',
      bytes: 0,
      originalBytes: 0,
      truncated: false,
    });
  });

  it('always keeps the longest whole-code-point prefix that fits (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 60 }),
        fc.integer({ min: 0, max: 200 }),
        (text, cap) => {
          const kept = applyNotebookCap(text, cap);
          const keptBytes = encoder.encode(kept.text);
          expect(keptBytes.length).toBe(kept.bytes);
          expect(kept.bytes).toBeLessThanOrEqual(cap);
          expect(kept.originalBytes).toBe(utf8ByteLength(text));
          expect(toWellFormed(text).startsWith(kept.text)).toBe(true);
          expect(kept.truncated).toBe(kept.bytes < kept.originalBytes);
          if (kept.truncated) {
            // adding the next whole code point would exceed the cap
            const next = [...toWellFormed(text).slice(kept.text.length)][0] ?? '';
            expect(kept.bytes + encoder.encode(next).length).toBeGreaterThan(cap);
          }
        },
      ),
    );
  });
});
