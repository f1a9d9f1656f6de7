import { describe, expect, it } from 'vitest';
import { findSecrets, JsonlSecretScan } from './secrets';

describe('findSecrets', () => {
  it('finds a configured secret, a bearer token and an OpenRouter key without echoing them', () => {
    const text =
      'log: Authorization: Bearer abcdefgh12345678 and sk-or-v1-0123456789abcdef and my-secret-value';
    const findings = findSecrets('x.txt', text, ['my-secret-value']);
    expect(findings.map((f) => f.what)).toEqual([
      'forbidden string #1 (a configured secret)',
      'a bearer token',
      'an OpenRouter API key (sk-or-v1-...)',
    ]);
    expect(JSON.stringify(findings)).not.toContain('abcdefgh12345678');
  });

  it('accepts a redacted header and ignores forbidden strings too short to be keys', () => {
    expect(findSecrets('x.txt', 'you sent Authorization: Bearer [REDACTED]', ['abc'])).toEqual([]);
  });

  it('finds reasoning text and authorization fields in JSON and JSONL, naming the place', () => {
    const line = JSON.stringify({
      result: {
        redactedResponse: { choices: [{ message: { content: 'ok', reasoning: 'I think...' } }] },
      },
    });
    expect(findSecrets('attempts.jsonl', `{}\n${line}\n`)).toEqual([
      {
        path: 'attempts.jsonl',
        what: 'hidden reasoning in "reasoning" at result.redactedResponse.choices[0].message.reasoning (line 2)',
      },
    ]);
    expect(findSecrets('a.json', JSON.stringify({ headers: { Authorization: 'x' } }))).toEqual([
      { path: 'a.json', what: 'a "Authorization" field at headers.Authorization' },
    ]);
    expect(
      findSecrets(
        'a.json',
        JSON.stringify({ reasoning_details: [{ type: 'reasoning.text', text: 'secret' }] }),
      ),
    ).toHaveLength(1);
  });

  it('lets reasoning settings and counters through (a live manifest has reasoningEffort)', () => {
    const manifest = {
      systems: [{ reasoningEffort: 'low' }],
      usage: { reasoningTokens: 12, reasoning_tokens: null },
      reasoning: null,
      thinking: [],
    };
    expect(findSecrets('manifest.json', JSON.stringify(manifest))).toEqual([]);
  });
});

describe('JsonlSecretScan', () => {
  it('finds what findSecrets finds in the whole text, in the same order, fed one line at a time', () => {
    const lines = [
      '{"a":1}',
      '{"headers":{"authorization":"Bearer abcdefgh12345678"}}',
      'not json sk-or-v1-abcdefgh1234',
      '{"reasoning":"hidden","note":"has the secret TOPSECRET99"}',
      '{"cookie":"x","reasoningTokens":3}',
    ];
    const forbidden = ['TOPSECRET99', 'absent-secret', 'short'];
    const scan = new JsonlSecretScan('attempts.jsonl', forbidden);
    for (const line of lines) {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        value = undefined;
      }
      scan.line(line, value);
    }
    const whole = findSecrets('attempts.jsonl', `${lines.join('\n')}\n`, forbidden);
    expect(whole.length).toBeGreaterThan(4);
    expect(scan.findings()).toEqual(whole);
  });
});
