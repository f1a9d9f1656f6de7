/**
 * `@chi/run/internal`: what the repository's own packages share with each other and their tests, but
 * users do not need. No stability promise: names here may change in any release. The public API is
 * `@chi/run` (see its README and api/run.api.txt).
 *
 * @packageDocumentation
 */

// The JSON-block rules live in the experiment SPI (`@chi/experiment`); re-exported for the
// report's readers.
export { jsonBlockIds } from '@chi/experiment';
export { writeAttemptAnchor } from './attempt-anchor';
export { type AttemptLogAnchor, attemptRecordSha256, checkAttemptChain } from './attempt-chain';
export {
  foldAttemptLog,
  foldAttemptRecord,
  loggedOutcome,
  type RequestLogState,
} from './attempt-log';
export { type AttemptLogEnd, type AttemptLogLine, attemptLogLines } from './attempt-log-lines';
export {
  attemptLogFoldOf,
  readAttemptLogLean,
  readAttemptRecordsLean,
} from './attempt-log-reader';
export { type BlockRequestState, blockRequestState, blockStatusOf } from './block-status';
export { fileLines } from './file-lines';
export { FileWindow } from './file-window';
export { lazyArray } from './lazy-array';
export { ledgerContradictions, ledgerExpectation, reconcileLedger } from './ledger-reconcile';
export { openRun } from './open-run';
export { indexPlan, PLAN_SCHEMA_PARSERS, type PlanIndex } from './plan-index';
export {
  type LayoutName,
  type ReleaseLayoutRow,
  releaseLayoutRow,
  renderLayoutRow,
} from './release-layout';
export { type UsableReply, usableReply } from './request-outcome';
export {
  isPublishedRunFile,
  legacyRequestPath,
  RUN_FILE_NAME,
  RUN_FOLDER_DIRECTORY,
  runFile,
  runFileOf,
  runFolderPaths,
} from './run-files';
export {
  canonicalPayload,
  decodeGzipJson,
  encodeGzipJson,
  gzipText,
  gzipTextAsync,
  requestFileOf,
  requestIndexEntry,
} from './run-folder';
export { throwIfRunDamaged } from './run-integrity';
export { readRunJsonl, streamRunJsonl } from './run-jsonl';
export { acquireRunLock, type RunLock } from './run-lock';
