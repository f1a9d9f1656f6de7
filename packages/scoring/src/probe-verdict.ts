import type { AnswerKeyEntry } from '@chi/spec';
import type { ClassifiedAnswer } from '@chi/spec/internal';
import { normalizeProbeSource, normalizeProbeValue } from './answer-normalization';

/**
 * Whether one classified answer passes its probe (docs/protocol.md#scoring, "Scoring a probe"):
 *
 * - lure (stratum f): only an explicit abstention passes;
 * - any other stratum whose expected answer is unknown (an as-of question with no eligible
 *   record): only an explicit abstention passes;
 * - r, t, u, i: an answer whose normalized value equals the expected value;
 * - s: the value and the source (trimmed, exact) both equal the expected ones.
 *
 * Invalid, missing and duplicate answers never pass.
 */
export function probePasses(entry: AnswerKeyEntry, answer: ClassifiedAnswer): boolean {
  if (entry.stratum === 'f' || entry.expectedValue === null) return answer.status === 'abstained';
  if (answer.status !== 'answered' || answer.value === null) return false;
  if (normalizeProbeValue(answer.value) !== entry.expectedValue) return false;
  if (entry.stratum !== 's') return true;
  return answer.source !== null && normalizeProbeSource(answer.source) === entry.expectedSource;
}
