/**
 * `@chi/scoring/internal`: what the repository's own packages share with each other and their tests, but
 * users do not need. No stability promise: names here may change in any release. The public API is
 * `@chi/scoring` (see its README and api/scoring.api.txt).
 *
 * @packageDocumentation
 */
export { assertCalibrationIntact } from './build-calibration';
export { estimateCalibrationAxes } from './calibration-estimate';
export { decisionVector } from './decision-distance';
export { GOAL_PERSISTENCE_FEATURES } from './goal-persistence-score';
export { indexRecords } from './record-precedence';
export { decisionOf } from './task-reply';
