import { describe, expect, it } from 'vitest';
import { readCompletion, readUsage } from './completion-response';

const context = { requestedModel: 'a/b', maxOutputTokens: 100, generationIdHeader: 'gen-h' };

describe('readCompletion', () => {
  it('joins text parts from an OpenAI-compatible content array', () => {
    const body = {
      choices: [
        {
          finish_reason: 'stop',
          message: {
            content: [
              { type: 'text', text: 'he' },
              { type: 'image' },
              { type: 'text', text: 'llo' },
            ],
          },
        },
      ],
    };
    expect(readCompletion(JSON.stringify(body), context)).toMatchObject({
      text: 'hello',
      failure: 'none',
      generationId: 'gen-h',
    });
  });

  it('prefers the body id over the header and notes a different returned model', () => {
    const body = { id: 'gen-b', model: 'a/b-2026', choices: [{ message: { content: 'x' } }] };
    expect(readCompletion(JSON.stringify(body), context)).toMatchObject({
      generationId: 'gen-b',
      returnedModel: 'a/b-2026',
      finishReason: null,
      notes: ['the API returned model a/b-2026, not the requested a/b'],
    });
  });

  it.each([
    ['[]', 'response body is not a JSON object'],
    ['{"choices":[]}', 'the response has no choices'],
    ['{"choices":"x"}', 'the response has no choices'],
    ['{"error":"overloaded"}', 'error delivered with HTTP 200: overloaded'],
  ])('%s is an invalid response: %s', (text, detail) => {
    expect(readCompletion(text, context)).toMatchObject({
      failure: 'invalid_response',
      detail,
      text: null,
    });
  });
});

describe('readUsage', () => {
  it('keeps valid counts and cost and nulls anything else', () => {
    expect(
      readUsage({
        usage: {
          prompt_tokens: 3,
          completion_tokens: -1,
          total_tokens: 2.5,
          completion_tokens_details: { reasoning_tokens: 0 },
          cost: '0.1',
        },
      }),
    ).toEqual({
      promptTokens: 3,
      completionTokens: null,
      reasoningTokens: 0,
      totalTokens: null,
      costUsd: null,
    });
    expect(readUsage({ usage: { cost: 0 } }).costUsd).toBe(0);
    expect(readUsage(null).promptTokens).toBeNull();
  });
});
