import type { MemoryProbeTrace } from '@chi/spec';
import { describe, expect, it } from 'vitest';
import {
  formatTrace,
  notebookExcerpt,
  selectCaseExamples,
  type TracedProbe,
} from './case-examples';

function trace(
  probeId: string,
  stratum: MemoryProbeTrace['stratum'],
  verdict: 'pass' | 'fail',
): MemoryProbeTrace {
  const record = {
    key: `k-${probeId}`,
    value: 'aaaabbbb',
    source: 'src-a',
    eventTime: '2026-01-01T00:00:00.000Z',
    authority: 2 as const,
  };
  return {
    probeId,
    stratum,
    key: record.key,
    asOf: null,
    eligibleRecords: [record],
    winnerIndex: 0,
    excludedByCutoff: [],
    expectedValue: record.value,
    expectedSource: record.source,
    answer:
      verdict === 'pass'
        ? {
            id: probeId,
            status: 'answered',
            value: record.value,
            source: record.source,
            detail: null,
          }
        : { id: probeId, status: 'abstained', value: null, source: null, detail: null },
    verdict,
    reason: verdict === 'pass' ? 'correct' : 'over_abstained',
    matchedRecord: null,
  };
}

function probe(
  systemId: string,
  probeId: string,
  stratum: MemoryProbeTrace['stratum'],
  verdict: 'pass' | 'fail',
  load = 32,
): TracedProbe {
  return {
    systemId,
    condition: 'notebook',
    load,
    worldSeed: 1,
    trace: trace(probeId, stratum, verdict),
    notebook: `k-${probeId} aaaabbbb src-a\nother line`,
  };
}

describe('selectCaseExamples', () => {
  const probes = [
    ...['p1', 'p2', 'p3', 'p4'].map((id, i) =>
      probe('zeta', id, 'r', i % 2 === 0 ? 'pass' : 'fail'),
    ),
    ...['q1', 'q2'].map((id) => probe('alpha', id, 't', 'fail')),
    probe('alpha', 'q3', 'r', 'pass', 64),
  ];

  it('takes one pass and one fail per system, condition, load and stratum', () => {
    const chosen = selectCaseExamples(probes);
    expect(chosen.map((c) => `${c.systemId} ${c.load} ${c.stratum} ${c.trace.verdict}`)).toEqual([
      'alpha 32 t fail',
      'alpha 64 r pass',
      'zeta 32 r pass',
      'zeta 32 r fail',
    ]);
  });

  it('orders systems as given (manifest order) and does not depend on input order', () => {
    const chosen = selectCaseExamples([...probes].reverse(), 1, ['zeta', 'alpha']);
    expect(chosen.map((c) => c.systemId)).toEqual(['zeta', 'zeta', 'alpha', 'alpha']);
    expect(chosen.map((c) => c.trace.probeId)).toEqual(
      selectCaseExamples(probes, 1, ['zeta', 'alpha']).map((c) => c.trace.probeId),
    );
  });

  it('attaches the notebook lines that mention the key', () => {
    const [first] = selectCaseExamples([probe('zeta', 'p1', 'r', 'pass')]);
    expect(first?.notebookExcerpt).toBe('k-p1 aaaabbbb src-a');
  });
});

describe('notebookExcerpt', () => {
  it('says when there is no notebook, an empty one, or no mention of the key', () => {
    expect(notebookExcerpt(null, 'k')).toMatch(/^\(oracle-evidence control/);
    expect(notebookExcerpt('', 'k')).toBe('(empty notebook)');
    expect(notebookExcerpt('abc\ndéf', 'zz')).toBe(
      '(the key zz does not appear in the 8-byte notebook)',
    );
  });

  it('shows at most three lines, clipped to 200 characters', () => {
    const long = `k ${'x'.repeat(250)}`;
    const text = [long, 'k 2', 'k 3', 'k 4', 'k 5'].join('\n');
    const lines = notebookExcerpt(text, 'k').split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toBe(`${long.slice(0, 200)}…`);
    expect(lines[3]).toBe('(… 2 more lines mention the key)');
  });
});

describe('formatTrace', () => {
  it('writes the question, the eligible records with the winner, the answer and the reason', () => {
    expect(formatTrace(trace('p9', 'r', 'fail'))).toBe(
      [
        'question: key k-p9 (current value) (stratum r)',
        'eligible records, in precedence order:',
        '  1. value aaaabbbb  source src-a  time 2026-01-01T00:00:00.000Z  authority 2  <- winner',
        'expected: value aaaabbbb, source src-a',
        'answer: abstained',
        'verdict: fail (over_abstained)',
      ].join('\n'),
    );
  });
});
