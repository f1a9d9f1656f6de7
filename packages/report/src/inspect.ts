/**
 * `@chi/report/inspect`: a run folder as Inspect evaluation logs (`chi export inspect`), without
 * the release writer's chart libraries. It scores and analyses the run through the same
 * `scoreRun` and `analyzeRun` as a release, so its headline numbers are the release's;
 * `inspect-imports.test.ts` fails if this entry's module graph reaches vega or vega-lite.
 *
 * @example
 * ```ts
 * import { writeInspectLogs } from '@chi/report/inspect';
 * const summary = await writeInspectLogs({ runDir: 'chi-runs/<runId>', outDir: 'inspect-logs' });
 * console.log(summary.files.length, summary.samples);
 * ```
 *
 * @packageDocumentation
 */
export { type InspectExportSummary, writeInspectLogs } from './inspect/write-inspect-logs';
