import { chartPartOf, type ModuleEstimate, type RunChartData } from '@chi/analysis';
import type { RunManifest } from '@chi/spec';
import { LEGACY_PRIMARY_CHECKPOINT } from '../analyze-run';
import type { JsonObject } from './json';

/** An estimate with its pointwise interval (either bound may be missing). */
interface Interval {
  readonly estimate: number | null;
  readonly lower: number | null;
  readonly upper: number | null;
}

/** The metrics of one log, in display order, and the estimands that have no value. */
export interface HeadlineMetrics {
  /** Inspect metrics by name (`{ name, value, params, metadata }`), headline estimands first. */
  readonly metrics: JsonObject;
  /** The headline estimands of the log that are undefined (no metric can hold a null). */
  readonly undefinedEstimands: readonly string[];
}

/** Collects metrics in insertion order; an estimate without a value is listed, not invented. */
class MetricList {
  readonly metrics: JsonObject = {};
  readonly undefinedEstimands: string[] = [];
  constructor(private readonly level: number) {}

  /** `name` with its value, and `name lower P%` / `name upper P%` when the interval exists. */
  interval(name: string, value: Interval, metadata: JsonObject): void {
    if (value.estimate === null) {
      this.undefinedEstimands.push(name);
      return;
    }
    this.add(name, value.estimate, metadata);
    const percent = `${Math.round(this.level * 1000) / 10}%`;
    if (value.lower !== null) this.add(`${name} lower ${percent}`, value.lower, {});
    if (value.upper !== null) this.add(`${name} upper ${percent}`, value.upper, {});
  }

  add(name: string, value: number, metadata: JsonObject): void {
    this.metrics[name] = { name, value, params: {}, metadata };
  }
}

const EIMC_STATUS_WORDS = {
  capacity: 'capacity',
  lower_bound: 'lower bound: the largest tested load passes',
  no_passing_load: 'no passing load',
} as const;

/** EIMC at each tau (when a load passes) and its status as the count of passing loads. */
function eimcMetrics(list: MetricList, data: RunChartData, systemId: string): void {
  for (const entry of chartPartOf(data, 'memory').eimc.filter((e) => e.systemId === systemId)) {
    const status = EIMC_STATUS_WORDS[entry.status];
    const metadata: JsonObject = {
      status: entry.status,
      testedLoads: [...entry.testedLoads],
      passingLoads: [...entry.passingLoads],
      worlds: entry.worlds,
    };
    if (entry.value !== null)
      list.interval(
        `EIMC tau=${entry.tau} (${status})`,
        { estimate: entry.value, lower: entry.lower, upper: entry.upper },
        metadata,
      );
    list.add(
      `EIMC tau=${entry.tau} passing loads (${status})`,
      entry.passingLoads.length,
      metadata,
    );
  }
}

/** Q_M of the system's memory points whose condition `keep` accepts, by load. */
function qualityMetrics(
  list: MetricList,
  data: RunChartData,
  systemId: string,
  keep: (condition: string) => boolean,
): void {
  const points = chartPartOf(data, 'memory')
    .memory.filter((p) => p.systemId === systemId && keep(p.condition))
    .sort((a, b) => a.load - b.load);
  for (const point of points) {
    const label = point.condition === 'notebook' ? '' : ` ${point.condition}`;
    list.interval(`Q_M${label} N=${point.load}`, point.qualityScore, {
      worlds: point.qualityScore.worlds,
      plannedWorlds: point.qualityScore.plannedWorlds,
      intervalNote: point.qualityScore.intervalNote,
      exploratory: point.exploratory,
    });
  }
}

/**
 * The headline estimands of one of the pilot's experiments for one system, from the release's
 * analysis (`chart-data.json`): memory, Q_M at each load then EIMC at each tau; controls, Q_M
 * of each control condition; history, the excess divergence at the preregistered checkpoint;
 * behavior, each indicator. Intervals are the release's pointwise percentile intervals.
 */
export function pilotHeadline(
  manifest: RunManifest,
  data: RunChartData,
  experiment: string,
  systemId: string,
): MetricList {
  const list = new MetricList(manifest.analysis.level);
  if (experiment === 'memory') {
    // Q_M at the smallest load first: Inspect's log list shows a log's first metric
    qualityMetrics(list, data, systemId, (condition) => condition === 'notebook');
    eimcMetrics(list, data, systemId);
  } else if (experiment === 'controls') {
    qualityMetrics(list, data, systemId, (condition) => condition !== 'notebook');
  } else if (experiment === 'history') {
    const checkpoint = manifest.analysis.primaryCheckpoint ?? LEGACY_PRIMARY_CHECKPOINT;
    const distance = chartPartOf(data, 'history').historyDistances.find(
      (d) => d.systemId === systemId && d.checkpoint === checkpoint,
    );
    if (distance !== undefined)
      list.interval(
        `excess divergence D(A,B)-D(A,A2) checkpoint ${checkpoint}`,
        distance.divergence,
        {
          worlds: distance.divergence.worlds,
          intervalNote: distance.divergence.intervalNote,
        },
      );
  } else if (experiment === 'behavior') {
    for (const point of chartPartOf(data, 'behavior').behavior.filter(
      (p) => p.systemId === systemId,
    ))
      list.interval(`behavior ${point.indicator}`, point.value, {
        worlds: point.value.worlds,
        intervalNote: point.value.intervalNote,
      });
  }
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
