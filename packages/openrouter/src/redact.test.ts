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
