/**
 * `@chi/stats/internal`: what the repository's own packages share with each other and their tests, but
 * users do not need. No stability promise: names here may change in any release. The public API is
 * `@chi/stats` (see its README and api/stats.api.txt).
 *
 * @packageDocumentation
 */
export { INTERVAL_METHOD_LABELS } from './interval-method.js';
export { quantileOfSorted } from './quantile.js';
export { drawResampleIndices } from './resample-draws.js';
export { STUDENTIZED_METHOD_LABEL } from './studentized-cluster-means.js';
