import type { AnswerKeyEntry } from '@chi/spec';
import {
  type ClassifiedAnswer,
  MEMORY_TRACE_REASONS,
  MemoryProbeTraceSchema,
  type MemoryTraceReason,
} from '@chi/spec/internal';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ANSWER_KEY,
  abstained,
  answered,
  failed,
  HAND_WORKED_ANSWERS,
  PROBE_IDS,
  parsedOf,
  RECORDS,
  T1,
  T3,
  T5,
} from './__fixtures__/tiny-world';
import { scoreMemoryProbes } from './memory-score';
import { traceMemoryProbes } from './memory-trace';

const keyOf = (id: string) => ANSWER_KEY.find((entry) => entry.id === id) as AnswerKeyEntry;
const traceOne = (answer: ClassifiedAnswer) => {
  const [trace] = traceMemoryProbes(RECORDS, [keyOf(answer.id)], parsedOf([answer]));
  if (trace === undefined) throw new Error('no trace');
  return trace;
};

describe('traceMemoryProbes: one hand-built case per reason', () => {
  const cases: [MemoryTraceReason, ClassifiedAnswer, string | null][] = [
    ['correct', answered('r1', 'aaaa0001', 'ledger-a'), null],
    ['correct_abstention', abstained('f1'), null],
    ['over_abstained', abstained('r1'), null],
    ['stale', answered('u1', 'bbbb0001', 'ledger-b'), 'bbbb0001'],
    ['authority_trap', answered('i1', 'cccc0001', 'memo-c'), 'cccc0001'],
    ['as_of_error', answered('t1', 'dddd0002', 'ledger-d2'), 'dddd0002'],
    ['neighbour', answered('i2', 'aaaa0001', 'ledger-a'), 'aaaa0001'],
    ['source_mismatch', answered('s2', 'bbbb0002', 'ledger-b'), null],
    ['invented', answered('r1', '12345678', 'ledger-a'), null],
    ['lure_recorded_value', answered('f1', 'abab0001', 'ledger-ab'), 'abab0001'],
    ['lure_invented_value', answered('f1', 'ffff0001', 'nowhere'), null],
    ['invalid_answer', failed('r1', 'invalid'), null],
    ['missing_answer', failed('r1', 'missing'), null],
    ['duplicate_answer', failed('r1', 'duplicate'), null],
  ];

  it('covers the whole taxonomy', () => {
    expect(new Set(cases.map(([reason]) => reason))).toEqual(new Set(MEMORY_TRACE_REASONS));
  });

  for (const [reason, answer, matchedValue] of cases) {
    it(reason, () => {
      const trace = traceOne(answer);
      expect(trace.reason).toBe(reason);
      expect(trace.verdict).toBe(
        reason === 'correct' || reason === 'correct_abstention' ? 'pass' : 'fail',
      );
      expect(trace.matchedRecord?.value ?? null).toBe(matchedValue);
      expect(MemoryProbeTraceSchema.safeParse(trace).success).toBe(true);
    });
  }

  it('an answer to an unknown as-of question: abstention passes, a later value is an as-of error', () => {
    expect(traceOne(abstained('t2')).reason).toBe('correct_abstention');
    expect(traceOne(answered('t2', 'eeee0001', 'ledger-e'))).toMatchObject({
      reason: 'as_of_error',
      verdict: 'fail',
    });
  });

  it('an older same-authority record is stale', () => {
    expect(traceOne(answered('u2', 'dddd0001', 'ledger-d')).reason).toBe('stale');
  });
});

describe('traceMemoryProbes: evidence shown', () => {
  it('lists eligible records in precedence order, the winner first, and the records after the cutoff', () => {
    const current = traceOne(answered('u1', 'bbbb0002', 'registry-b'));
    expect(current.eligibleRecords.map((r) => [r.value, r.authority])).toEqual([
      ['bbbb0002', 2],
      ['bbbb0001', 1],
    ]);
    expect(current.winnerIndex).toBe(0);
    const asOf = traceOne(answered('t1', 'dddd0001', 'ledger-d'));
    expect(asOf).toMatchObject({ asOf: T3, reason: 'correct' });
    expect(asOf.eligibleRecords.map((r) => r.eventTime)).toEqual([T1]);
    expect(asOf.excludedByCutoff.map((r) => r.eventTime)).toEqual([T5]);
    const unknown = traceOne(abstained('t2'));
    expect(unknown.eligibleRecords).toEqual([]);
    expect(unknown.winnerIndex).toBeNull();
  });

  it('keeps the answer exactly as the system gave it', () => {
    expect(traceOne(answered('u2', ' DDDD0002 ', 'ledger-d2')).answer.value).toBe(' DDDD0002 ');
  });
});

describe('traceMemoryProbes: consistency', () => {
  const answerArb = (id: string) =>
    fc.oneof(
      fc.constant(abstained(id)),
      fc
        .constantFrom<'invalid' | 'missing' | 'duplicate'>('invalid', 'missing', 'duplicate')
        .map((status) => failed(id, status)),
      fc
        .tuple(
          fc.constantFrom(
            'aaaa0001',
            'bbbb0001',
            'bbbb0002',
            'cccc0001',
            'cccc0002',
            'dddd0001',
            'dddd0002',
            'eeee0001',
            'abab0001',
            '99999999',
          ),
          fc.constantFrom(
            'ledger-a',
            'registry-b',
            'ledger-b',
            'registry-c',
            'ledger-d',
            'ledger-d2',
            'ledger-ab',
          ),
        )
        .map(([value, source]) => answered(id, value, source)),
    );
  const answersArb = fc.tuple(...PROBE_IDS.map(answerArb)) as fc.Arbitrary<ClassifiedAnswer[]>;

  it('the reasons partition the probes and verdicts agree with scoreMemoryProbes', () => {
    fc.assert(
      fc.property(answersArb, (answers) => {
        const traces = traceMemoryProbes(RECORDS, ANSWER_KEY, parsedOf(answers));
        const score = scoreMemoryProbes(ANSWER_KEY, parsedOf(answers));
        expect(traces.map((t) => t.probeId)).toEqual(PROBE_IDS);
        for (const trace of traces) {
          expect(MEMORY_TRACE_REASONS).toContain(trace.reason);
          expect(trace.verdict === 'pass').toBe(
            trace.reason === 'correct' || trace.reason === 'correct_abstention',
          );
        }
        for (const stratum of ['r', 't', 's', 'u', 'i'] as const) {
          const passed = traces.filter((t) => t.stratum === stratum && t.verdict === 'pass').length;
          expect(passed).toBe(score.strata[stratum].numerator);
        }
        const lureFailures = traces.filter((t) => t.stratum === 'f' && t.verdict === 'fail').length;
        expect(lureFailures).toBe(score.strata.f.numerator);
      }),
      { numRuns: 500 },
    );
  });

  it('the hand-worked reply has the reasons its comments describe', () => {
    const traces = traceMemoryProbes(RECORDS, ANSWER_KEY, parsedOf(HAND_WORKED_ANSWERS));
    expect(traces.map((t) => [t.probeId, t.reason])).toEqual([
      ['r1', 'correct'],
      ['r2', 'correct'],
      ['t1', 'as_of_error'],
      ['t2', 'correct_abstention'],
      ['s1', 'correct'],
      ['s2', 'source_mismatch'],
      ['u1', 'stale'],
      ['u2', 'correct'],
      ['i1', 'correct'],
      ['i2', 'neighbour'],
      ['f1', 'lure_invented_value'],
      ['f2', 'correct_abstention'],
    ]);
  });

  it('refuses an answer key that disagrees with its records, naming the entry', () => {
    const wrong = [{ ...keyOf('u1'), expectedValue: 'bbbb0001', expectedSource: 'ledger-b' }];
    expect(() => traceMemoryProbes(RECORDS, wrong, parsedOf([abstained('u1')]))).toThrow(
      'answerKey[0]: the records\' winner for key "k-beta" is bbbb0002 from "registry-b", but the answer key expects bbbb0001 from "ledger-b"',
    );
    const recordedLure = [{ ...keyOf('f1'), key: 'k-alpha' }];
    expect(() => traceMemoryProbes(RECORDS, recordedLure, parsedOf([abstained('f1')]))).toThrow(
      'answerKey[0].key: lure key "k-alpha" has records',
    );
  });

  it('refuses records whose precedence is undefined (equal authority and time)', () => {
    const tied = [
      ...RECORDS,
      {
        key: 'k-alpha',
        value: 'aaaa0009',
        source: 'copy',
        eventTime: '2026-01-01T00:00:00Z',
        authority: 1 as const,
      },
    ];
    expect(() => traceMemoryProbes(tied, [keyOf('r1')], parsedOf([abstained('r1')]))).toThrow(
      'records[9]: key "k-alpha" has two records with authority 1 at 2026-01-01T00:00:00Z: precedence is undefined',
    );
  });
});
