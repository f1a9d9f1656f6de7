import { requestInputBytes, reservationUsd } from '@chi/openrouter';
import type { ModelCatalog, Price, SystemSpec } from '@chi/spec';
import { seedWorldsSource, worstCaseNotes } from '../plan/plan-cost';
import { renderPlannedRequest } from '../plan/render-planned';
import type { OpenedRun } from './opened-run';

/** The price a system's transport reserves with, or null when it reserves nothing. */
function reservingPrice(
  system: SystemSpec,
  catalog: ModelCatalog | undefined,
): { catalogPrice: Price | null; safetyPrice: Price | null } | null {
  if (system.kind === 'scripted') return null;
  const catalogPrice =
    system.kind === 'openrouter'
      ? (catalog?.models.find((model) => model.model === system.model)?.price ?? null)
      : null;
  // An unpriced endpoint runs without the ledger (`--accept-unbounded-spend`): nothing to reserve.
  if (catalogPrice === null && system.safetyPrice === null) return null;
  return { catalogPrice, safetyPrice: system.safetyPrice };
}

/**
 * Each request's whole worst case, in nano-USD by plan ordinal: what the transport can reserve for
 * it over every try it may make (`1 + retry.maxRetries` tries, each reserving
 * `reservationUsd` of `@chi/openrouter` for the rendered input and the output cap, with the larger
 * of the catalog and the safety price and the manifest's margin). A request that reads a notebook
 * is rendered with the notebook cap's worst-escaping notes (`worstCaseNotes`), so no real notebook
 * can make a try reserve more. Scripted and unpriced systems reserve nothing (0). The block
 * admission of the scheduler sums these per block.
 */
export function requestWorstCasesNanos(
  run: Pick<OpenedRun, 'manifest' | 'plan' | 'prompts' | 'experiments' | 'systems'>,
  catalog: ModelCatalog | undefined,
): Float64Array {
  const { manifest, plan } = run;
  const tries = 1 + manifest.retry.maxRetries;
  const worstCases = new Float64Array(plan.requestCount);
  const notes = worstCaseNotes(manifest.notebookCapBytes);
  const worldsOf = seedWorldsSource(manifest);
  for (let ordinal = 0; ordinal < plan.requestCount; ordinal += 1) {
    const request = plan.requestAt(ordinal);
    const system = run.systems.get(request.systemId);
    const price = system === undefined ? null : reservingPrice(system, catalog);
    if (system === undefined || price === null) continue;
    const rendered = renderPlannedRequest({
      request,
      manifest,
      worlds: worldsOf(request.worldSeed),
      prompts: run.prompts,
      notes: () => notes,
      experiments: run.experiments,
    });
    const perTryUsd = reservationUsd({
      inputBytes: requestInputBytes(rendered.messages),
      maxOutputTokens: system.maxOutputTokens,
      ...price,
      marginRatio: manifest.reservationMargin,
    });
    worstCases[ordinal] = Math.round(perTryUsd * 1e9) * tries;
  }
  return worstCases;
}
