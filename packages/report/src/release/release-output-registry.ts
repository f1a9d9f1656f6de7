import { behaviorReleaseOutput } from './release-behavior';
import { historyReleaseOutput } from './release-history';
import { memoryReleaseOutput } from './release-memory';
import type { ExperimentReleaseOutput } from './release-outputs';

/**
 * The release's output adapters: the toolkit's experiments with fixed files in a release (their
 * observations, per-world CSV, scoring parameters and case examples), iterated by
 * `produceDerivedRelease`. An experiment with fixed release files adds one line here; the
 * per-world (module) experiments publish theirs through their scorers instead.
 */
export const BUILT_IN_RELEASE_OUTPUTS: readonly ExperimentReleaseOutput[] = [
  memoryReleaseOutput,
  historyReleaseOutput,
  behaviorReleaseOutput,
];
