import type { ModuleEstimate, RunChartData } from '@chi/analysis';
import type { RunManifest } from '@chi/spec';
import { PILOT_HEADLINES } from './headline-registry';
import type { JsonObject } from './json';
import { MetricList } from './metric-list';

/** The metrics of one log, in display order, and the estimands that have no value. */
export interface HeadlineMetrics {
  /** Inspect metrics by name (`{ name, value, params, metadata }`), headline estimands first. */
  readonly metrics: JsonObject;
  /** The headline estimands of the log that are undefined (no metric can hold a null). */
  readonly undefinedEstimands: readonly string[];
}

/**
 * The headline estimands of one of the pilot's block kinds for one system, from the release's
 * analysis (`chart-data.json`): what its entry of {@link PILOT_HEADLINES} adds (memory, Q_M at
 * each load then EIMC at each tau; the reference conditions, Q_M of each; history, the excess
 * divergence at the preregistered checkpoint; behavior, each indicator). Intervals are the
 * release's pointwise percentile intervals.
 */
export function pilotHeadline(
  manifest: RunManifest,
  data: RunChartData,
  experiment: string,
  systemId: string,
): MetricList {
  const list = new MetricList(manifest.analysis.level);
  PILOT_HEADLINES.find((h) => h.experimentId === experiment)?.metrics(
    list,
    manifest,
    data,
    systemId,
  );
  return list;
}

/** The headline of a module experiment for one system: the release's world-mean estimates. */
export function moduleHeadline(
  manifest: RunManifest,
  estimates: readonly ModuleEstimate[],
  systemId: string,
): MetricList {
  const list = new MetricList(manifest.analysis.level);
  for (const estimate of estimates.filter((e) => e.systemId === systemId))
    list.interval(estimate.column, estimate, {
      label: estimate.label,
      worlds: estimate.worlds,
      plannedWorlds: estimate.plannedWorlds,
      intervalOmittedReason: estimate.intervalOmittedReason,
    });
  return list;
}

/**
 * The secondary metric of the pilot's logs: the mean over samples of a request's item accuracy,
 * with its standard error over requests (requests of one world are not independent, so this is
 * descriptive only; the headline estimands above carry the release's world-cluster intervals).
 */
export function addItemAccuracy(list: MetricList, values: readonly number[]): void {
  if (values.length === 0) return;
  const mean = values.reduce((sum, v) => sum + v, 0) / values.length;
  list.add('item accuracy (secondary)', mean, { samples: values.length });
  if (values.length < 2) return;
  const variance = values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / (values.length - 1);
  list.add('item accuracy stderr (secondary)', Math.sqrt(variance / values.length), {});
}

export type { MetricList };
