/**
 * `@chi/report`: turns a pilot run folder into a release bundle (canonical JSON, SHA256SUMS, chart
 * data, SVG figures, Markdown and HTML report) and verifies a release by recomputing every number.
 *
 * @packageDocumentation
 */
export { canonicalJson, canonicalJsonSha256, sha256Hex } from './canonical-json';
export { type FigureSource, renderFigureSvg } from './render-svg';
export {
  checkSha256Sums,
  compareUtf8,
  formatSha256Sums,
  hashTree,
  listTreeFiles,
  parseSha256Sums,
  SHA256SUMS_FILE,
  type Sha256SumsEntry,
  type Sha256SumsProblem,
  writeSha256Sums,
} from './sha256-sums';
