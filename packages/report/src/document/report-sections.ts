import { behaviorSection } from './report-behavior';
import { historySection } from './report-history';
import { memorySection } from './report-memory';
import type { ExperimentSection } from './report-section';

/**
 * The report's sections registry: the toolkit's experiments with a section of their chart-data
 * part, in report order (after the systems and method, before the profiles and the module
 * sections). An added experiment passes its own beside these: `[...BUILT_IN_SECTIONS, mine]`.
 */
export const BUILT_IN_SECTIONS: readonly ExperimentSection[] = [
  memorySection,
  historySection,
  behaviorSection,
];
