/**
 * `@chi/report/viewer`: the run viewer alone (`chi view`), without the release writer's chart
 * libraries. `@chi/report` re-exports the same functions; this entry exists so that a process that
 * only browses a run never imports vega or vega-lite (about a third of `chi view`'s first paint,
 * docs/benchmarks/view.md). `view-imports.test.ts` fails if this entry's module graph reaches them.
 *
 * @example
 * ```ts
 * import { startViewServer } from '@chi/report/viewer';
 * const server = await startViewServer({ dir: 'chi-runs/20260901T080000Z-1a2b3c4d' });
 * console.log(server.url);
 * await server.close();
 * ```
 *
 * @packageDocumentation
 */

/** The evidence banner: every viewer labels scripted, synthetic and unverified results as such. */
export { evidenceBanner } from '@chi/analysis';
export { boundHeapGrowth } from './heap-growth';
/** The release CSV reader (RFC 4180), for viewers of other release kinds (the divergence drill-down). */
export { parseCsv } from './release/csv';
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
