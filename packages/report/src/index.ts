/**
 * `@chi/report`: turns a pilot run folder into a release bundle (canonical JSON, SHA256SUMS, chart
 * data as JSON and CSV, SVG figures, Markdown and HTML report) and verifies a release by
 * recomputing every number from the raw responses.
 *
 * @example
 * ```ts
 * import { verifyRelease, writeRelease } from '@chi/report';
 * await writeRelease({ runDir: 'chi-runs/20260901T080000Z-1a2b3c4d', outDir: 'release' });
 * const { ok, mismatches } = await verifyRelease('release');
 * ```
 *
 * @packageDocumentation
 */
export {
  type ChartData,
  ChartDataSchema,
  type IntervalEstimate,
  type RunFacts,
  runEvidenceBanner,
} from '@chi/analysis';
export { formatEstimate } from './document/format-number';
export { BUILT_IN_SCORERS } from './experiment-scorers/scorer-registry';
export type { ReleaseCode } from './release/release-code';
export type { ReleaseParameters } from './release/release-files';
export type { ReleaseKind, ReleaseKindDerived } from './release/release-kind';
export {
  checkSha256Sums,
  formatSha256Sums,
  parseSha256Sums,
  type Sha256SumsEntry,
  type Sha256SumsProblem,
  writeSha256Sums,
} from './release/sha256-sums';
export {
  type ReleaseStep,
  type ReleaseSummary,
  SecretLeakError,
  type WriteReleaseOptions,
  writeRelease,
} from './release/write-release';
export { runVerifyCli, type VerifyCliIo } from './verify/verify-cli';
export {
  type VerifyMismatch,
  type VerifyReleaseOptions,
  type VerifyReport,
  verifyRelease,
} from './verify/verify-release';
export { writeViewBundle } from './view/view-bundle';
export { writeCompareBundle } from './view/view-compare-bundle';
export type { ViewedRelease, ViewKind, ViewKindPage } from './view/view-kind';
export { startViewServer, type ViewServer, type ViewServerOptions } from './view/view-server';
export type {
  ViewStudy,
  ViewStudyReport,
  ViewStudyReportState,
  ViewStudyRow,
  ViewStudySession,
  ViewStudySessionState,
  ViewStudySource,
} from './view/view-study';
export { writeStudyViewBundle } from './view/view-study-bundle';
