/**
 * `@chi/chis`: CHIS sequences. A crash-safe append-only JSONL log (generic over any zod schema, used
 * for CHIS entries and the pilot's attempt log), a reader that groups entries by trajectory, the
 * trajectory dynamics (continuity, drift, plasticity, stability, recovery, hysteresis, memory
 * accumulation, experience divergence) and seeded synthetic trajectories with known ground truth.
 *
 * This entry includes the Node-only file I/O (Node >= 20). `@chi/chis/pure` exports everything else
 * without any Node built-in, for browsers and workers.
 *
 * @packageDocumentation
 */
export { type ChisLogContents, readChisTrajectories } from './chis-log';
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
  type CollectedTriples,
  collectHistoryTriples,
  type ExperienceDivergenceOptions,
  type ExperienceDivergenceResult,
  experienceDivergence,
  type HistoryLabels,
  type HistoryTriple,
  type PairDivergence,
} from './experience-divergence';
export { type HysteresisOptions, type HysteresisResult, hysteresis } from './hysteresis';
export { type JsonlReadResult, parseJsonl, serializeJsonlLine, type TornTail } from './jsonl-lines';
export {
  type JsonlStream,
  readJsonl,
  type StreamJsonlOptions,
  streamJsonl,
} from './jsonl-reader';
export {
  createJsonlWriter,
  type FsyncPolicy,
  type JsonlWriter,
  type JsonlWriterOptions,
} from './jsonl-writer';
export {
  type AccumulationPoint,
  type MemoryAccumulationOptions,
  type MemoryAccumulationResult,
  memoryAccumulation,
} from './memory-accumulation';
export { type PlasticityOptions, type PlasticityResult, plasticity } from './plasticity';
export { type RecoveryOptions, type RecoveryResult, recovery } from './recovery';
export {
  type ChisResponse,
  type Distance,
  meanAbsoluteDifference,
  type ResponseCoordinates,
  responseCoordinates,
  responseDistance,
} from './response-distance';
export { type StabilityOptions, type StabilityResult, stability } from './stability';
export {
  generateSyntheticTrajectories,
  SYNTHETIC_ROLES,
  type SyntheticExpectedDynamics,
  type SyntheticFault,
  type SyntheticGroundTruth,
  type SyntheticPlanted,
  type SyntheticReplicate,
  type SyntheticRole,
  type SyntheticTrajectories,
  type SyntheticTrajectoryOptions,
} from './synthetic-trajectories';
export {
  type ChisTrajectory,
  compareEntries,
  type EntryRef,
  entryRef,
  type GroupedTrajectories,
  groupTrajectories,
  type TrajectoryClock,
  type TrajectoryProblem,
} from './trajectories';
