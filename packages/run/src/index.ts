/**
 * `@chi/run`: the rules of a run folder that every reader shares (the runner, the scorer, the
 * report and `chi verify`), each with one implementation. See README.md.
 */
export type { AttemptChainCheck, AttemptChainFileCheck } from './attempt-chain';
export { outcomesFromAttemptLog, readAttemptLog } from './attempt-log';
export { computeBlockStatuses } from './block-status';
export { canonicalJson, canonicalJsonSha256, sha256Hex } from './canonical-json';
export {
  createJsonlWriter,
  type FsyncPolicy,
  type JsonlWriter,
  type JsonlWriterOptions,
} from './jsonl-writer';
export type { RequestOutcome } from './request-outcome';
export {
  RUN_FILES,
  type RunFile,
  type RunFileFormat,
  type RunFileRole,
  type RunPaths,
} from './run-files';
export {
  type CanonicalPayload,
  openRunFolder,
  type RequestLayout,
  type RunFolder,
} from './run-folder';
export { checkRunIntegrity, type RunIntegrity, type RunIntegrityInput } from './run-integrity';
export { parseRunJsonl } from './run-jsonl';
