import { describe, expect, it } from 'vitest';
import { decodeReply } from './decode-reply';

describe('decodeReply', () => {
  it('passes text through and drops a byte-order mark', () => {
    expect(decodeReply('\ufeff[1]')).toEqual({ text: '[1]', notes: [] });
    expect(decodeReply('plain')).toEqual({ text: 'plain', notes: [] });
  });

  it('decodes UTF-8 bytes, replacing invalid sequences with a note', () => {
    expect(decodeReply(new TextEncoder().encode('caf\u00e9'))).toEqual({
      text: 'caf\u00e9',
      notes: [],
    });
    expect(decodeReply(Uint8Array.from([0x61, 0xff, 0x62]))).toEqual({
      text: 'a\ufffdb',
      notes: ['reply bytes are not valid UTF-8: invalid sequences were replaced by U+FFFD'],
    });
  });

  it('treats anything else as an empty reply with a note', () => {
    expect(decodeReply(null)).toEqual({
      text: '',
      notes: ['reply is neither a string nor a Uint8Array (found null): treated as empty'],
    });
    expect(decodeReply(42).notes[0]).toContain('found number');
  });
});
