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
  type PackedClusterVectors,
  packClusterVectors,
} from './cluster-means.js';
export { bootstrapPValue, holmAdjust } from './holm-adjust.js';
export type { IntervalMethod } from './interval-method.js';
export {
  expectedHalfWidth,
  minimumDetectableDifference,
  worldsForDifference,
  worldsForHalfWidth,
} from './precision-plan.js';
export {
  type PercentileInterval,
  type PercentileIntervalOptions,
  percentileInterval,
  type QuantileDefinition,
} from './quantile.js';
export {
  type SimultaneousBand,
  type SimultaneousBands,
  type SimultaneousBandsOptions,
  simultaneousBands,
} from './simultaneous-bands.js';
export {
  type StudentizedClusterMeansOptions,
  type StudentizedEstimate,
  studentizedClusterMeans,
} from './studentized-cluster-means.js';
export {
  type WeightedMeansBootstrapOptions,
  type WeightedMeansStatistic,
  weightedMeansBootstrap,
} from './weighted-means-bootstrap.js';
