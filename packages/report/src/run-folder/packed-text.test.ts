import { describe, expect, it } from 'vitest';
import { PackedText } from './packed-text';

describe('PackedText', () => {
  it('gives back exactly the appended text, across chunk boundaries and multi-byte characters', () => {
    const parts = Array.from({ length: 40 }, (_, i) => `${'x'.repeat(i * 997)}é€😀${i}\n`);
    const packed = new PackedText();
    for (const part of parts) packed.append(part);
    expect(packed.text()).toBe(parts.join(''));
  });

  it('can be read, appended to and read again', () => {
    const packed = new PackedText();
    expect(packed.text()).toBe('');
    packed.append('a\n'.repeat(200_000));
    expect(packed.text()).toBe('a\n'.repeat(200_000));
    packed.append('é\n');
    expect(packed.text()).toBe(`${'a\n'.repeat(200_000)}é\n`);
  });
});
