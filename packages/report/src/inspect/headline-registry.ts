import { behaviorHeadline } from './headline-behavior';
import { historyHeadline } from './headline-history';
import { controlsHeadline, memoryHeadline } from './headline-memory';
import type { ExperimentHeadline } from './metric-list';

/**
 * The headline estimands of the pilot's Inspect logs, by the block kind each log holds: an
 * experiment scored by blocks adds one line here. A kind without an entry gets no headline
 * estimands (its log keeps the secondary metric).
 */
export const PILOT_HEADLINES: readonly ExperimentHeadline[] = [
  memoryHeadline,
  controlsHeadline,
  historyHeadline,
  behaviorHeadline,
];
