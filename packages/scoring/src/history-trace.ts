import type { Decision, HistoryItemTrace, ValidAnswer } from '@chi/spec';
import { HISTORY_IDS, type HistoryTraceReason } from '@chi/spec/internal';
import {
  CHECKPOINT_COUNT,
  checkHistoryObservations,
  checkpointAccuracy,
  type HistoryObservations,
} from './history-score';

/** The reason of one history decision given the warranted answer. */
export function historyReason(expected: ValidAnswer, answer: Decision): HistoryTraceReason {
  if (answer === 'invalid') return 'invalid_decision';
  if (answer === expected) return 'correct';
  if (expected === 'unknown') return 'option_when_unknown';
  return answer === 'unknown' ? 'unknown_when_known' : 'wrong_option';
}

/**
 * One trace per history decision (history x checkpoint x environment, in that order): the
 * warranted answer, the decision, verdict and one reason (`HISTORY_TRACE_REASONS`: correct,
 * wrong_option, unknown_when_known, option_when_unknown, invalid_decision). Verdicts agree with
 * `checkpointAccuracy`.
 *
 * @throws InvalidArgumentError for the same malformed input `scoreHistory` rejects.
 */
export function traceHistoryDecisions(observations: HistoryObservations): HistoryItemTrace[] {
  checkHistoryObservations(observations);
  const traces: HistoryItemTrace[] = [];
  for (const history of HISTORY_IDS) {
    for (let checkpoint = 0; checkpoint < CHECKPOINT_COUNT; checkpoint++) {
      const valid = observations.validAnswers[history][checkpoint] as readonly ValidAnswer[];
      const decisions = observations.decisions[history][checkpoint] as readonly Decision[];
      checkpointAccuracy(decisions, valid); // validates this checkpoint's shape and values
      decisions.forEach((answer, environmentIndex) => {
        const expected = valid[environmentIndex] as ValidAnswer;
        const reason = historyReason(expected, answer);
        traces.push({
          history,
          checkpoint,
          environmentIndex,
          expected,
          answer,
          verdict: reason === 'correct' ? 'pass' : 'fail',
          reason,
        });
      });
    }
  }
  return traces;
}
