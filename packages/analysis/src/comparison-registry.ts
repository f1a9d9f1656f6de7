import { behaviorComparison } from './comparison-behavior';
import type { ComparisonQuantity } from './comparison-estimands';
import { historyComparison } from './comparison-history';
import { memoryComparison } from './comparison-memory';

/**
 * The experiments with paired comparisons, in the order each pair defines them on the run's
 * bootstrap: an experiment with comparisons of its own adds one line here.
 */
export const COMPARISON_QUANTITIES: readonly ComparisonQuantity[] = [
  memoryComparison,
  historyComparison,
  behaviorComparison,
];
