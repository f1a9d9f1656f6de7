/**
 * `@chi/run`: the rules of a run folder that every reader shares (the runner, the scorer, the
 * report and `chi verify`), each with one implementation. See README.md.
 */

export {
  ATTEMPT_ANCHOR_FILE,
  type AttemptAnchorRead,
  readAttemptAnchor,
  writeAttemptAnchor,
} from './attempt-anchor';
export {
  type AttemptChainCheck,
  AttemptChainChecker,
  type AttemptChainFileCheck,
  type AttemptLogAnchor,
  attemptRecordSha256,
  checkAttemptChain,
  checkAttemptChainFile,
} from './attempt-chain';
export {
  foldAttemptLog,
  foldAttemptRecord,
  loggedOutcome,
  outcomesFromAttemptLog,
  type RequestLogState,
  readAttemptLog,
} from './attempt-log';
export { type AttemptLogReading, type LineRanges, readAttemptLogLean } from './attempt-log-reader';
export { attemptRecordsOnDisk } from './attempt-records-on-disk';
export {
  type BlockRequestState,
  blockRequestState,
  blockStatusOf,
  computeBlockStatuses,
} from './block-status';
export { canonicalJson, canonicalJsonSha256, sha256Hex } from './canonical-json';
export {
  ACCOUNT_FAILURE_STATUSES,
  type FailureCategory,
  failureCategory,
  infrastructureReason,
  isAccountFailure,
  isInfrastructureFailure,
  ROUTING_FAILURE_STATUSES,
} from './failure-class';
export { type FileLine, fileLines } from './file-lines';
export { FileWindow } from './file-window';
export { extractJsonBlock, jsonBlockIds, renderJsonBlock } from './json-blocks';
export {
  createJsonlWriter,
  type FsyncPolicy,
  type JsonlWriter,
  type JsonlWriterOptions,
} from './jsonl-writer';
export { lazyArray } from './lazy-array';
export {
  ExpectationFold,
  type LedgerExpectation,
  ledgerContradictions,
  ledgerExpectation,
  readLedgerEntries,
  reconcileLedger,
} from './ledger-reconcile';
export { type OpenedRun, openRun } from './open-run';
export {
  indexPlan,
  PLAN_SCHEMA_PARSERS,
  type PlanIndex,
  type PlanParsers,
  type PlanTextReader,
} from './plan-index';
export {
  type LayoutName,
  layoutName,
  RELEASE_LAYOUT_ROWS,
  type ReleaseLayoutRow,
  type ReleaseLayoutRowId,
  releaseLayoutRow,
  renderLayoutRow,
} from './release-layout';
export { type RequestOutcome, type UsableReply, usableReply } from './request-outcome';
export {
  type FixedRunFileId,
  isPublishedRunFile,
  legacyRequestPath,
  payloadPath,
  RUN_FILE_NAME,
  RUN_FILES,
  RUN_FOLDER_DIRECTORY,
  type RunFile,
  type RunFileFormat,
  type RunFileRole,
  type RunFolderDirectoryId,
  type RunPaths,
  renderRunFileTable,
  runFile,
  runFileOf,
  runFolderPaths,
} from './run-files';
export {
  type CanonicalPayload,
  canonicalPayload,
  decodeGzipJson,
  decodePayload,
  detectRequestLayout,
  type EncodedPayload,
  encodeGzipJson,
  encodePayload,
  gzipText,
  gzipTextAsync,
  openRunFolder,
  type RequestLayout,
  RUN_FILE_GZIP_LEVEL,
  type RunFolder,
  requestFileOf,
  requestIndexEntry,
} from './run-folder';
export {
  checkRunIntegrity,
  type RunIntegrity,
  type RunIntegrityInput,
  throwIfRunDamaged,
} from './run-integrity';
export { parseRunJsonl, readRunJsonl, streamRunJsonl } from './run-jsonl';
export {
  type AcquireRunLockOptions,
  acquireRunLock,
  isProvablyGone,
  LOCAL_PROCESS_PROBE,
  type ProcessProbe,
  RUN_LOCK_FILE,
  type RunLock,
  type RunLockOwner,
} from './run-lock';
