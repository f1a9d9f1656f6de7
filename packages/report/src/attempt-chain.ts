// The attempt log's hash chain lives in @chi/run (the run folder's owner; the runner checks it
// before a resume appends). Re-exported so the report's modules and public API keep their names.
export {
  type AttemptChainCheck,
  AttemptChainChecker,
  type AttemptLogAnchor,
  attemptRecordSha256,
  checkAttemptChain,
} from '@chi/run';
