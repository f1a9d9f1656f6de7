import { describe, expect, it } from 'vitest';
import { REDACTED, redactResponseBody, scrubSecrets } from './redact';

const KEY = 'sk-or-v1-FAKE-KEY-0123456789abcdef';

describe('scrubSecrets', () => {
  it('replaces every occurrence of the key', () => {
    expect(scrubSecrets(`Bearer ${KEY} and again ${KEY}`, [KEY])).toBe(
      `Bearer ${REDACTED} and again ${REDACTED}`,
    );
  });

  it('leaves short placeholders such as EMPTY alone', () => {
    expect(scrubSecrets('EMPTY key EMPTY', ['EMPTY'])).toBe('EMPTY key EMPTY');
  });
});

describe('scrubSecrets on fragments', () => {
  it('replaces a fragment of 8 or more characters of the key, wherever it was cut', () => {
    expect(scrubSecrets(`began ${KEY.slice(0, 12)}`, [KEY])).toBe(`began ${REDACTED}`);
    expect(scrubSecrets(`ended ${KEY.slice(-9)}.`, [KEY])).toBe(`ended ${REDACTED}.`);
    expect(scrubSecrets(`short ${KEY.slice(0, 7)}`, [KEY])).toBe(`short ${KEY.slice(0, 7)}`);
  });

  it('replaces the token of every Bearer credential, known or not', () => {
    expect(scrubSecrets('Authorization: Bearer abc.DEF-123_x=', [])).toBe(
      `Authorization: Bearer ${REDACTED}`,
    );
  });

  it('keeps JSON valid when it scrubs inside a string', () => {
    const text = JSON.stringify({ error: `Bearer ${KEY.slice(0, 30)}"`, n: 1 });
    expect(JSON.parse(scrubSecrets(text, [KEY]))).toEqual({ error: `Bearer ${REDACTED}"`, n: 1 });
  });

  it('never leaves any 8-character window of the key, for text cut at any length', () => {
    const body = `${'x'.repeat(40)} Authorization: Bearer ${KEY} tail`;
    for (let cut = 0; cut <= body.length; cut++) {
      const shown = scrubSecrets(body, [KEY]).slice(0, cut);
      for (let start = 0; start + 8 <= KEY.length; start++)
        expect(shown).not.toContain(KEY.slice(start, start + 8));
    }
  });
});

describe('redactResponseBody', () => {
  it('removes hidden reasoning text but keeps reasoning token counts and the answer', () => {
    const body = {
      id: 'gen-1',
      choices: [
        {
          finish_reason: 'stop',
          message: {
            role: 'assistant',
            content: 'answer',
            reasoning: 'private chain of thought',
            reasoning_details: [{ type: 'reasoning.text', text: 'more' }],
            reasoning_content: 'vendor field',
          },
        },
      ],
      usage: {
        completion_tokens: 10,
        completion_tokens_details: { reasoning_tokens: 7 },
        thinking: { text: 'x' },
      },
    };
    expect(redactResponseBody(body, [KEY])).toEqual({
      id: 'gen-1',
      choices: [{ finish_reason: 'stop', message: { role: 'assistant', content: 'answer' } }],
      usage: { completion_tokens: 10, completion_tokens_details: { reasoning_tokens: 7 } },
    });
  });

  it('scrubs a key echoed anywhere, in values and in keys', () => {
    const body = { error: { message: `invalid key ${KEY}`, metadata: { [KEY]: [KEY] } } };
    expect(JSON.stringify(redactResponseBody(body, [KEY]))).not.toContain(KEY);
    expect(redactResponseBody(body, [KEY])).toEqual({
      error: { message: `invalid key ${REDACTED}`, metadata: { [REDACTED]: [REDACTED] } },
    });
  });

  it('does not modify its input', () => {
    const body = { message: { reasoning: 'r', content: KEY } };
    redactResponseBody(body, [KEY]);
    expect(body).toEqual({ message: { reasoning: 'r', content: KEY } });
  });
});
