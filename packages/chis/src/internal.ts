/**
 * `@chi/chis/internal`: what the repository's own packages share with each other and their tests, but
 * users do not need. No stability promise: names here may change in any release. The public API is
 * `@chi/chis` (see its README and api/chis.api.txt).
 *
 * @packageDocumentation
 */
export {
  createJsonlLineJudge,
  decodeForReport,
  decodeJsonLine,
  type JsonlLineJudge,
  serializeJsonlLine,
} from './jsonl-lines';
export { fileLineBytes } from './jsonl-reader';
export { replicateChange } from './replicate-change';
