import type { BehaviorItemTrace, BehaviorScore, ClassifiedTaskAnswer } from '@chi/spec';
import type { AxisTaskScore, BehavioralAxis, FramePair } from '@chi/spec/internal';
import {
  answersByItemId,
  type BehavioralItemsAndKey,
  checkItemSet,
  framePairs,
  judgeItem,
} from './behavior-judge';
import { ratio } from './ratio';

/**
 * One trace per behavioral item, in key order: item, expected answer, the classified answer, the
 * option it named, verdict and reason.
 *
 * Scoring rules: R items compare the answer with the expected one after `normalizeExactAnswer`
 * (NFC, trim, collapse whitespace; case kept). C, A and I items are choices: the answer must name
 * one of the item's options after `normalizeChoiceAnswer` (the same, lowercased), and passes only
 * when it names the expected option. For I items the expected option is the only one that satisfies every declared
 * constraint, so any other valid option violates at least one (`constraint_violated`). For A items
 * the expected option is the one with the higher expected value.
 *
 * @param answers every classified answer of the world's items (both halves concatenated).
 * @throws ValidationError / InvalidArgumentError for an inconsistent item set or answers that do
 *   not classify exactly the set's items.
 */
export function traceBehaviorItems(
  itemSet: BehavioralItemsAndKey,
  answers: readonly ClassifiedTaskAnswer[],
): BehaviorItemTrace[] {
  const checked = checkItemSet(itemSet);
  const byId = answersByItemId(checked, answers);
  return checked.map((entry) =>
    judgeItem(entry, byId.get(entry.key.itemId) as ClassifiedTaskAnswer),
  );
}

function axisScore(axis: BehavioralAxis, traces: readonly BehaviorItemTrace[]): AxisTaskScore {
  const own = traces.filter((trace) => trace.axis === axis);
  const count = (predicate: (trace: BehaviorItemTrace) => boolean) => own.filter(predicate).length;
  return {
    axis,
    accuracy: ratio(
      count((trace) => trace.verdict === 'pass'),
      own.length,
    ),
    answered: count((trace) => trace.answer.status === 'answered'),
    abstained: count((trace) => trace.answer.status === 'abstained'),
    invalid: count((trace) => trace.answer.status === 'invalid'),
    missing: count((trace) => trace.answer.status === 'missing'),
    duplicate: count((trace) => trace.answer.status === 'duplicate'),
    notAnOption: count((trace) => trace.reason === 'not_an_option'),
  };
}

/**
 * The behavioral task indicators of one world: accuracy per axis (R exact answers; C, I and A
 * choices, see {@link traceBehaviorItems}) with how every answer came back, and the paired
 * frame-induced choice change of the A items.
 *
 * Frame-induced change compares, for each matched pair, the position of the option chosen under
 * the positive frame with the one chosen under the negative frame (option k means the same thing
 * in both frames). Rate = pairs whose two frames got different valid choices / pairs where both
 * choices are valid. It is reported as a rate, not as a better-or-worse score.
 *
 * @example
 * ```ts
 * const half1 = parseTaskReply(reply1, idsOfHalf1);
 * const half2 = parseTaskReply(reply2, idsOfHalf2);
 * const score = scoreBehavior(itemSet, [...half1.answers, ...half2.answers]);
 * score.axes.I.accuracy.rate; score.frameInducedChange.rate;
 * ```
 */
export function scoreBehavior(
  itemSet: BehavioralItemsAndKey,
  answers: readonly ClassifiedTaskAnswer[],
): BehaviorScore {
  const checked = checkItemSet(itemSet);
  const byId = answersByItemId(checked, answers);
  const traces = checked.map((entry) =>
    judgeItem(entry, byId.get(entry.key.itemId) as ClassifiedTaskAnswer),
  );
  const traceById = new Map(traces.map((trace) => [trace.itemId, trace]));

  const pairs: FramePair[] = framePairs(checked).map(({ pairId, positive, negative }) => {
    const positiveChoice = traceById.get(positive.key.itemId)?.chosenOption ?? null;
    const negativeChoice = traceById.get(negative.key.itemId)?.chosenOption ?? null;
    return {
      pairId,
      positiveItemId: positive.key.itemId,
      negativeItemId: negative.key.itemId,
      positiveChoice,
      negativeChoice,
      changed:
        positiveChoice === null || negativeChoice === null
          ? null
          : positiveChoice !== negativeChoice,
    };
  });
  const comparable = pairs.filter((pair) => pair.changed !== null);
  return {
    axes: {
      R: axisScore('R', traces),
      C: axisScore('C', traces),
      A: axisScore('A', traces),
      I: axisScore('I', traces),
    },
    frameInducedChange: {
      rate: ratio(comparable.filter((pair) => pair.changed === true).length, comparable.length),
      pairs,
      interpretation: 'rate of frame-induced choice changes; neither higher nor lower is better',
    },
  };
}
