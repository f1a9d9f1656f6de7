/**
 * `@chi/report/internal`: what the repository's own packages share with each other and their tests, but
 * users do not need. No stability promise: names here may change in any release. The public API is
 * `@chi/report` (see its README and api/report.api.txt).
 *
 * @packageDocumentation
 */

export { renderHtml, renderMarkdown } from './document/render-report';
export type { ReportBlock, ReportFigure } from './document/report-block';
export {
  type ModuleScoringSource,
  scoreModule,
} from './experiment-scorers/module-scores';
export { scorerOfBlock } from './experiment-scorers/scorer-registry';
export { failpoint } from './failpoint';
export { boundHeapGrowth } from './heap-growth';
export { parseCsv } from './release/csv';
export { packReleaseCode } from './release/release-code';
export { partialRunText, runCompleteness } from './run-folder/run-completeness';
export { readRunFolder } from './run-folder/run-folder';
export { scoreRun } from './scoring/score-run';
// The study report's cell format: `chi study report` writes it, the study page reads it back.
export { fixedCell, fixedNumber } from './view/view-study-svg';
