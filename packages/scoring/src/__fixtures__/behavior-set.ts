import type { BehavioralKey, ClassifiedTaskAnswer } from '@chi/spec';
import type { BehavioralItemsAndKey, ScorableItem } from '../behavior-judge';

// A hand-built behavioral item set (fixture data, not a measurement).
const item = (
  id: string,
  axis: ScorableItem['axis'],
  half: 1 | 2,
  options: string[] | null,
  pairId: string | null = null,
  frame: ScorableItem['frame'] = null,
): ScorableItem => ({
  id,
  axis,
  half,
  pairId,
  frame,
  answerFormat: options === null ? 'exact' : 'choice',
  options,
});
const key = (
  itemId: string,
  axis: BehavioralKey['axis'],
  half: 1 | 2,
  expected: string,
  constraints: string[] = [],
  pairId: string | null = null,
  frame: BehavioralKey['frame'] = null,
): BehavioralKey => ({ itemId, axis, half, pairId, frame, expected, constraints });

export const ITEM_SET: BehavioralItemsAndKey = {
  items: [
    item('r-1', 'R', 1, null),
    item('r-2', 'R', 2, null),
    item('c-1', 'C', 1, ['ask for the missing price', 'buy now', 'wait']),
    item('i-1', 'I', 2, ['route north', 'route south', 'route east']),
    item('a-1p', 'A', 1, ['safe plan', 'risky plan'], 'p1', 'positive'),
    item('a-1n', 'A', 2, ['sure loss plan', 'gamble plan'], 'p1', 'negative'),
    item('a-2p', 'A', 2, ['safe plan', 'risky plan'], 'p2', 'positive'),
    item('a-2n', 'A', 1, ['sure loss plan', 'gamble plan'], 'p2', 'negative'),
  ],
  key: [
    key('r-1', 'R', 1, '42'),
    key('r-2', 'R', 2, 'Blue Triangle'),
    key('c-1', 'C', 1, 'ask for the missing price'),
    key('i-1', 'I', 2, 'route south', ['arrive before 18:00', 'cost under 40']),
    key('a-1p', 'A', 1, 'risky plan', [], 'p1', 'positive'),
    key('a-1n', 'A', 2, 'gamble plan', [], 'p1', 'negative'),
    key('a-2p', 'A', 2, 'risky plan', [], 'p2', 'positive'),
    key('a-2n', 'A', 1, 'gamble plan', [], 'p2', 'negative'),
  ],
};

export const said = (id: string, answer: string): ClassifiedTaskAnswer => ({ id, status: 'answered', answer, detail: null });
export const status = (id: string, s: 'abstained' | 'invalid' | 'missing' | 'duplicate'): ClassifiedTaskAnswer => ({
  id,
  status: s,
  answer: null,
  detail: s === 'abstained' ? null : s,
});

export const ANSWERS: readonly ClassifiedTaskAnswer[] = [
  said('r-1', '42'),
  said('r-2', ' Blue \t Triangle '),
  said('c-1', 'buy now'),
  said('i-1', 'route north'),
  said('a-1p', 'risky plan'),
  said('a-1n', 'sure loss plan'),
  said('a-2p', 'Safe Plan'),
  said('a-2n', 'sure loss'),
];
