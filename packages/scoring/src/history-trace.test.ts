import { HistoryItemTraceSchema } from '@chi/spec/internal';
import { describe, expect, it } from 'vitest';
import { decisions, validAnswers } from './__fixtures__/history-grid';
import { scoreHistory } from './history-score';
import { historyReason, traceHistoryDecisions } from './history-trace';

describe('historyReason', () => {
  it('has one hand-built case per reason', () => {
    expect(historyReason('A', 'A')).toBe('correct');
    expect(historyReason('unknown', 'unknown')).toBe('correct');
    expect(historyReason('A', 'B')).toBe('wrong_option');
    expect(historyReason('B', 'unknown')).toBe('unknown_when_known');
    expect(historyReason('unknown', 'A')).toBe('option_when_unknown');
    expect(historyReason('unknown', 'invalid')).toBe('invalid_decision');
  });
});

describe('traceHistoryDecisions', () => {
  it('gives each decision one reason, and verdicts agree with accuracy', () => {
    const traces = traceHistoryDecisions({ validAnswers, decisions });
    expect(traces).toHaveLength(3 * 5 * 2);
    const reasonsOf = (history: string, checkpoint: number) =>
      traces
        .filter((t) => t.history === history && t.checkpoint === checkpoint)
        .map((t) => t.reason);
    expect(reasonsOf('A', 0)).toEqual(['correct', 'option_when_unknown']);
    expect(reasonsOf('A', 3)).toEqual(['correct', 'wrong_option']);
    expect(reasonsOf('B', 2)).toEqual(['correct', 'invalid_decision']);
    expect(reasonsOf('A2', 4)).toEqual(['unknown_when_known', 'correct']);
    const passes = traces.filter(
      (t) => t.history === 'A' && t.checkpoint === 0 && t.verdict === 'pass',
    ).length;
    expect(passes).toBe(
      scoreHistory({ validAnswers, decisions }).checkpoints[0]?.histories.A.accuracy.accuracy
        .numerator,
    );
  });
});

describe('traceHistoryDecisions output', () => {
  it('matches the schema and partitions every decision into exactly one reason', () => {
    const traces = traceHistoryDecisions({ validAnswers, decisions });
    for (const trace of traces) expect(HistoryItemTraceSchema.safeParse(trace).success).toBe(true);
    const score = scoreHistory({ validAnswers, decisions });
    for (const point of score.checkpoints) {
      for (const history of ['A', 'B', 'A2'] as const) {
        const own = traces.filter(
          (t) => t.history === history && t.checkpoint === point.checkpoint,
        );
        expect(own.filter((t) => t.verdict === 'pass').length).toBe(
          point.histories[history].accuracy.accuracy.numerator,
        );
      }
    }
  });
});
