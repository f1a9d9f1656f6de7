import type { DivergenceEstimate, DivergenceSystemResult } from './analyze';

/** A task-accuracy cell: the estimate with its pointwise interval, or null with the reason. */
function accuracyCell(value: DivergenceEstimate): string {
  if (value.estimate === null) return `null (${value.reason ?? 'undefined'})`;
  if (value.lower === null || value.upper === null) return `${value.estimate.toFixed(3)}`;
  return `${value.estimate.toFixed(3)} [${value.lower.toFixed(3)}, ${value.upper.toFixed(3)}]`;
}

/**
 * The task-accuracy table of one system, printed beside its dynamics in `report.md` and
 * `report.html`: one row per arm, one column per checkpoint (world counts are in
 * `divergence-accuracy.csv`).
 */
export function taskAccuracyTable(system: DivergenceSystemResult): {
  readonly columns: string[];
  readonly rows: string[][];
} {
  const checkpoints = [...new Set(system.taskAccuracy.map((cell) => cell.checkpoint))];
  const arms = [...new Set(system.taskAccuracy.map((cell) => cell.arm))];
  return {
    columns: ['arm', ...checkpoints.map((checkpoint) => `checkpoint ${checkpoint}`)],
    rows: arms.map((arm) => [
      arm,
      ...checkpoints.map((checkpoint) => {
        const cell = system.taskAccuracy.find(
          (candidate) => candidate.arm === arm && candidate.checkpoint === checkpoint,
        );
        return cell === undefined ? '' : accuracyCell(cell.value);
      }),
    ]),
  };
}

/** The caption of the task-accuracy table. */
export const TASK_ACCURACY_CAPTION =
  'Task accuracy (share of the primary choices answered as the arm’s history warrants) per arm and checkpoint, pointwise 95% intervals: the task outcomes that accompany the dynamics';
