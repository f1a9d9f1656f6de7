import { bootstrapPValue, holmAdjust } from '@chi/stats';
import type { AnalysisContext } from './analysis-context';
import type { BootstrapRegistry, BootstrapResults, Estimand } from './bootstrap-registry';
import type { Comparisons } from './chart-data';
import {
  type ComparisonEstimand,
  type ComparisonEstimands,
  type ComparisonSettings,
  EstimandCache,
  type RowValues,
} from './comparison-estimands';
import { COMPARISON_QUANTITIES } from './comparison-registry';

export type { ComparisonEstimands, ComparisonSettings } from './comparison-estimands';
export { eimcCensoring } from './comparison-memory';

/** The pairs compared: (system, reference) for every other system, or every pair i < j. */
export function comparisonPairs(
  systems: readonly string[],
  referenceSystem: string | null,
): [string, string][] {
  if (referenceSystem !== null) {
    return systems.filter((id) => id !== referenceSystem).map((id) => [id, referenceSystem]);
  }
  return systems.flatMap((a, i) => systems.slice(i + 1).map((b): [string, string] => [a, b]));
}

/**
 * Registers every paired comparison on the run's one bootstrap (after every experiment's own
 * estimands, so theirs keep their order): per pair, each registered experiment's quantities
 * ({@link COMPARISON_QUANTITIES}, in order: Q_M per load and EIMC per tau over the worlds whose
 * notebook curves are complete in both systems, the excess divergence at the manifest's primary
 * checkpoint over the worlds with valid vectors in both, and each behavior indicator over the
 * worlds defining it in both). A and B are recomputed over that shared world set in every
 * replicate, from the same multiset of worlds.
 */
export function defineComparisons(
  context: AnalysisContext,
  registry: BootstrapRegistry,
  settings: ComparisonSettings,
): ComparisonEstimands {
  const cache = new EstimandCache(registry);
  return comparisonPairs(context.systems, settings.referenceSystem).flatMap((pair) =>
    COMPARISON_QUANTITIES.flatMap((quantity) => quantity.define(context, cache, pair, settings)),
  );
}

/** A row's values: its quantity's own reading (e.g. EIMC), or the point estimates of A and B. */
function pointValues(estimand: ComparisonEstimand, results: BootstrapResults): RowValues {
  const point = (e: Estimand) => results.get(e)?.estimate ?? null;
  if (estimand.values !== undefined) return estimand.values(point);
  return {
    valueA: point(estimand.a),
    valueB: point(estimand.b),
    statusA: null,
    statusB: null,
    censoring: null,
  };
}

/**
 * The comparison rows with their p-values and the Holm adjustment over every tested row. A row is
 * tested when its difference has a bootstrap interval and is not an EIMC comparison of two
 * statuses censored on the same side.
 */
export function comparisonResults(
  estimands: ComparisonEstimands,
  results: BootstrapResults,
  settings: ComparisonSettings & { readonly level: number },
): Comparisons {
  const rows = estimands.map((estimand) => {
    const worlds = estimand.worlds.length;
    const difference = results.interval(estimand.difference, {
      used: worlds,
      complete: worlds,
      planned: Math.max(estimand.planned, worlds),
    });
    const values = pointValues(estimand, results);
    const tested = difference.intervalNote === null && values.censoring !== 'both_same_side';
    return {
      ...estimand.key,
      scripted: settings.scripted(estimand.key.systemA) || settings.scripted(estimand.key.systemB),
      ...values,
      difference,
      pValue: tested ? bootstrapPValue(estimand.signs) : null,
      worldSeeds: [...estimand.worlds],
    };
  });
  const adjusted = holmAdjust(rows.map((row) => row.pValue));
  const alpha = 1 - settings.level;
  return {
    referenceSystem: settings.referenceSystem,
    adjustment: 'holm',
    family: adjusted.filter((p) => p !== null).length,
    rows: rows.map((row, index) => {
      const p = adjusted[index] ?? null;
      return { ...row, adjustedPValue: p, differsFamilyWise: p === null ? null : p < alpha };
    }),
  };
}
