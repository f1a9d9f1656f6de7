/**
 * `@chi/chis/pure`: everything in `@chi/chis` that needs no Node built-in — the dynamics, the
 * trajectory grouping, the distances, the synthetic generator and in-memory JSONL parsing — for
 * browsers, workers and other runtimes. The Node-only file I/O (`readJsonl`, `streamJsonl`,
 * `readChisTrajectories`) is in the main entry only.
 *
 * @packageDocumentation
 */
export {
  type ContinuityOptions,
  type ContinuityPair,
  type ContinuityResult,
  continuity,
} from './continuity';
export { type DriftOptions, type DriftPoint, type DriftResult, drift } from './drift';
export type { DynamicResult } from './dynamic-result';
export type { EntrySelector } from './entry-selector';
export {
  type ExperienceDivergenceOptions,
  type ExperienceDivergenceResult,
  experienceDivergence,
  type HistoryTriple,
  type PairDivergence,
} from './experience-divergence';
export { type HysteresisOptions, type HysteresisResult, hysteresis } from './hysteresis';
export { type JsonlReadResult, parseJsonl, type TornTail } from './jsonl-lines';
export {
  type AccumulationPoint,
  type MemoryAccumulationOptions,
  type MemoryAccumulationResult,
  memoryAccumulation,
} from './memory-accumulation';
export { type PlasticityOptions, type PlasticityResult, plasticity } from './plasticity';
export { type RecoveryOptions, type RecoveryResult, recovery } from './recovery';
export { type ChisResponse, type Distance, responseDistance } from './response-distance';
export { type StabilityOptions, type StabilityResult, stability } from './stability';
export {
  generateSyntheticTrajectories,
  type SyntheticExpectedDynamics,
  type SyntheticFault,
  type SyntheticGroundTruth,
  type SyntheticPlanted,
  type SyntheticReplicate,
  type SyntheticRole,
  type SyntheticTrajectories,
  type SyntheticTrajectoryOptions,
} from './synthetic-trajectories';
export type {
  ChisTrajectory,
  EntryRef,
  GroupedTrajectories,
  TrajectoryClock,
  TrajectoryProblem,
} from './trajectories';
