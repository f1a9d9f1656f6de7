import { chartPartOf, type RunChartData } from '@chi/analysis';
import type { JsonObject } from './json';
import type { ExperimentHeadline, MetricList } from './metric-list';

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

/** The memory logs' headline: Q_M at each load (smallest first), then EIMC at each tau. */
export const memoryHeadline: ExperimentHeadline = {
  experimentId: 'memory',
  metrics(list, _manifest, data, systemId) {
    // Q_M at the smallest load first: Inspect's log list shows a log's first metric
    qualityMetrics(list, data, systemId, (condition) => condition === 'notebook');
    eimcMetrics(list, data, systemId);
  },
};

/** The reference-condition logs' headline: Q_M of each control condition. */
export const controlsHeadline: ExperimentHeadline = {
  experimentId: 'controls',
  metrics(list, _manifest, data, systemId) {
    qualityMetrics(list, data, systemId, (condition) => condition !== 'notebook');
  },
};
