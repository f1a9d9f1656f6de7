export type {
  BootstrapEstimate,
  BootstrapEstimateFields,
  BootstrapEstimates,
  IntervalOmittedReason,
  QuantileChoice,
} from './bootstrap-estimate.js';
export {
  BOOTSTRAP_DEFAULTS,
  type ClusterBootstrapOptions,
  clusterBootstrap,
  type NamedStatistics,
  type StatisticOutput,
} from './cluster-bootstrap.js';
export {
  meanOverClusters,
  meanVectorOverClusters,
  type PackedClusterVectors,
  packClusterVectors,
} from './cluster-means.js';
export { bootstrapPValue, holmAdjust } from './holm-adjust.js';
export {
  type FamilyCoverage,
  intervalCoverage,
  type KnownTruthInterval,
} from './interval-coverage.js';
export {
  assertIntervalMethod,
  INTERVAL_METHOD_LABELS,
  INTERVAL_METHODS,
  type IntervalMethod,
  intervalTailProbability,
} from './interval-method.js';
export {
  expectedHalfWidth,
  minimumDetectableDifference,
  normalQuantile,
  worldsForDifference,
  worldsForHalfWidth,
} from './precision-plan.js';
export {
  type PercentileInterval,
  type PercentileIntervalOptions,
  percentileInterval,
  QUANTILE_DEFINITIONS,
  type QuantileDefinition,
  quantileOfSorted,
} from './quantile.js';
export { type DrawResampleIndicesOptions, drawResampleIndices } from './resample-draws.js';
export {
  type SimultaneousBand,
  type SimultaneousBands,
  type SimultaneousBandsOptions,
  simultaneousBands,
} from './simultaneous-bands.js';
export { normalCdf, studentTCdf, studentTQuantile } from './student-t.js';
export {
  STUDENTIZED_METHOD,
  STUDENTIZED_METHOD_LABEL,
  type StudentizedClusterMeansOptions,
  type StudentizedEstimate,
  studentizedClusterMeans,
} from './studentized-cluster-means.js';
export {
  type WeightedMeansBootstrapOptions,
  type WeightedMeansStatistic,
  weightedMeansBootstrap,
} from './weighted-means-bootstrap.js';
