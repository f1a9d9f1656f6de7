import type { Decision, ValidAnswer } from '@chi/spec';
import type { PerHistoryGrid } from '../history-score';

// Two environments. History A's evidence favours A, B's favours B; the correction at checkpoint 4
// reverses both. A2 repeats A.
export const validA: ValidAnswer[][] = [
  ['unknown', 'unknown'],
  ['A', 'A'],
  ['A', 'A'],
  ['A', 'A'],
  ['B', 'B'],
];
export const validB: ValidAnswer[][] = validA.map((row) =>
  row.map((v) => (v === 'A' ? 'B' : v === 'B' ? 'A' : v)),
);
export const validAnswers: PerHistoryGrid<ValidAnswer> = { A: validA, B: validB, A2: validA };

export const decisions: PerHistoryGrid<Decision> = {
  A: [
    ['unknown', 'A'],
    ['A', 'A'],
    ['A', 'A'],
    ['A', 'B'],
    ['B', 'A'],
  ],
  B: [
    ['unknown', 'unknown'],
    ['B', 'B'],
    ['B', 'invalid'],
    ['B', 'B'],
    ['A', 'A'],
  ],
  A2: [
    ['unknown', 'unknown'],
    ['A', 'A'],
    ['A', 'A'],
    ['A', 'A'],
    ['unknown', 'B'],
  ],
};

