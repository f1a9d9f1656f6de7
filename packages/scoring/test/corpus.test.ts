import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  type AnswerStatus,
  ParsedProbeReplySchema,
  ParsedTaskReplySchema,
} from '@chi/spec/internal';
import { describe, expect, it } from 'vitest';
import { scanBudgetChars } from '../src/answer-set';
import { parseProbeReply, parseTaskReply } from '../src/index';

interface CorpusCase {
  file: string;
  kind: 'probe' | 'task';
  description: string;
  requestedIds?: string[];
  expected: {
    foundAnswerSet: boolean;
    unrequestedCount: number;
    statuses: Record<string, AnswerStatus>;
    values?: Record<string, string>;
    noteIncludes?: string[];
  };
}

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
const manifest = JSON.parse(readFileSync(`${fixtures}manifest.json`, 'utf8')) as {
  requestedIds: string[];
  cases: CorpusCase[];
};

function parse(kind: CorpusCase['kind'], reply: string | Uint8Array, ids: string[]) {
  if (kind === 'probe') {
    const parsed = parseProbeReply(reply, ids);
    expect(ParsedProbeReplySchema.safeParse(parsed).success).toBe(true);
    return {
      ...parsed,
      answers: parsed.answers.map((a) => ({ id: a.id, status: a.status, payload: a.value })),
    };
  }
  const parsed = parseTaskReply(reply, ids);
  expect(ParsedTaskReplySchema.safeParse(parsed).success).toBe(true);
  return {
    ...parsed,
    answers: parsed.answers.map((a) => ({ id: a.id, status: a.status, payload: a.answer })),
  };
}

describe('adversarial reply corpus', () => {
  it('has at least 40 cases, each with its own file', () => {
    expect(manifest.cases.length).toBeGreaterThanOrEqual(40);
    expect(new Set(manifest.cases.map((c) => c.file)).size).toBe(manifest.cases.length);
  });

  for (const testCase of manifest.cases) {
    it(`${testCase.file}: ${testCase.description}`, () => {
      const ids = testCase.requestedIds ?? manifest.requestedIds;
      const bytes = new Uint8Array(readFileSync(`${fixtures}replies/${testCase.file}`));
      const reply = testCase.file.endsWith('.bin') ? bytes : new TextDecoder().decode(bytes);
      const parsed = parse(testCase.kind, reply, ids);
      const { expected } = testCase;
      expect(Object.fromEntries(parsed.answers.map((a) => [a.id, a.status]))).toEqual(
        expected.statuses,
      );
      expect(parsed.foundAnswerSet).toBe(expected.foundAnswerSet);
      expect(parsed.unrequestedCount).toBe(expected.unrequestedCount);
      for (const [id, value] of Object.entries(expected.values ?? {})) {
        expect(parsed.answers.find((a) => a.id === id)?.payload).toBe(value);
      }
      for (const fragment of expected.noteIncludes ?? []) {
        expect(parsed.notes.some((note) => note.includes(fragment))).toBe(true);
      }
      // Text and its UTF-8 bytes classify the same way.
      if (typeof reply === 'string') {
        expect(parse(testCase.kind, new TextEncoder().encode(reply), ids).answers).toEqual(
          parsed.answers,
        );
      }
    });
  }
});

describe('1 MB replies (generated, not committed)', () => {
  const MB = 1 << 20;
  const ids = manifest.requestedIds;
  const [p1, p2, p3] = ids as [string, string, string];
  const good = JSON.stringify([
    { id: p1, value: '0a1b2c3d', source: 'ledger-7' },
    { id: p2, value: null, source: null },
    { id: p3, value: 'ffee0011', source: 'registry-2' },
  ]);
  const statuses = (reply: string | Uint8Array) =>
    parseProbeReply(reply, ids).answers.map((a) => a.status);

  it('finds the answer after 1 MB of prose', () => {
    const prose = 'The notebook says many things about keys and {values} and "sources". '.repeat(
      MB / 64,
    );
    expect(prose.length).toBeGreaterThan(MB);
    expect(statuses(`${prose}\n${good}`)).toEqual(['answered', 'abstained', 'answered']);
  });

  it('keeps a 1 MB source string intact', () => {
    const huge = 'x'.repeat(MB);
    const parsed = parseProbeReply(
      JSON.stringify([{ id: p1, value: '0a1b2c3d', source: huge }]),
      ids,
    );
    expect(parsed.answers[0]?.source).toHaveLength(MB);
  });

  it('counts 1 MB of unrequested answers', () => {
    const filler = Array.from({ length: 25_000 }, (_, k) => ({
      id: `other-${k}`,
      value: null,
      source: null,
    }));
    const reply = JSON.stringify([...filler, { id: p1, value: null, source: null }]);
    expect(reply.length).toBeGreaterThan(MB);
    const parsed = parseProbeReply(reply, ids);
    expect(parsed.unrequestedCount).toBe(25_000);
    expect(parsed.answers.map((a) => a.status)).toEqual(['abstained', 'missing', 'missing']);
  });

  it('survives 1 MB of unclosed brackets and unclosed answer fragments', () => {
    expect(statuses('{'.repeat(MB))).toEqual(['missing', 'missing', 'missing']);
    expect(statuses('['.repeat(MB))).toEqual(['missing', 'missing', 'missing']);
    const fragment = `[{"id":"${p1}","value":"`;
    expect(statuses(fragment.repeat(Math.ceil(MB / fragment.length)))).toEqual([
      'missing',
      'missing',
      'missing',
    ]);
  });

  it('stops a search that would turn quadratic at the reading budget, with a note', () => {
    // Every read of this text runs to the end and fails, and its first in-string bracket lies
    // just after its start: without the budget each of ~350k restarts would re-read the rest.
    const hostile = ',["'.repeat(Math.ceil(MB / 3));
    const parsed = parseProbeReply(hostile, ids);
    expect(parsed.answers.map((a) => a.status)).toEqual(['missing', 'missing', 'missing']);
    expect(parsed.notes).toContain(
      `search stopped: the reading budget of ${scanBudgetChars(hostile.length)} characters was used up`,
    );
  });

  it('survives 1 MB of pseudo-random bytes', () => {
    let state = 0x9e3779b9;
    const bytes = new Uint8Array(MB);
    for (let k = 0; k < bytes.length; k++) {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      bytes[k] = state >>> 24;
    }
    expect(statuses(bytes)).toEqual(['missing', 'missing', 'missing']);
  });
});
