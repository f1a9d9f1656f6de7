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
// the divergence protocol's viewer (@chi/pilot) reads its release's CSV files and draws its
// banner with these, not through `@chi/report/internal`, whose module graph reaches the chart
// libraries (view-cli-imports.test.ts)
export { parseCsv } from './csv';
export { evidenceBanner } from './evidence-label';
export { boundHeapGrowth } from './heap-growth';
export { writeViewBundle } from './view/view-bundle';
export { writeCompareBundle } from './view/view-compare-bundle';
export { startViewServer, type ViewServer, type ViewServerOptions } from './view/view-server';
