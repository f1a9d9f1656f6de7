import type { BehaviorPart } from './behavior-analysis';
import { behaviorChartFile } from './behavior-analysis';
import type { ChartData } from './chart-data';
import type { ChartFilePart } from './chart-file-part';
import type { HistoryPart } from './history-analysis';
import { historyChartFile } from './history-analysis';
import type { MemoryPart } from './memory-analysis';
import { memoryChartFile } from './memory-analysis';

/**
 * The parts of the chart data the toolkit's own experiments give, by experiment ID: what
 * {@link chartPartOf} reads with its type. An added experiment's part is in
 * `experiments` of {@link RunChartData} under its own ID, untyped here.
 */
export interface ChartParts {
  readonly memory: MemoryPart;
  readonly history: HistoryPart;
  readonly behavior: BehaviorPart;
}

/** Each experiment's part of the chart data, under its experiment ID. */
export type ChartPartMap = Partial<ChartParts> & { readonly [experimentId: string]: object };

/** The fields of `chart-data.json` that hold an experiment's part (the file keeps them flat). */
export type ExperimentChartField = {
  [K in keyof ChartParts]: keyof ChartParts[K];
}[keyof ChartParts];

/**
 * The chart data in memory: what describes the run (facts, resources, missingness, comparisons
 * and the opt-in rows) and each experiment's part keyed by its ID. What the figures, the report
 * and `chi verify` read; `chart-data.json` holds it in its published, flat layout
 * ({@link chartDataFile}, {@link runChartData}).
 */
export type RunChartData = Omit<ChartData, ExperimentChartField> & {
  readonly experiments: ChartPartMap;
};

/**
 * The experiments whose parts `chart-data.json` holds, in the order the analyses give them:
 * the file adapter's registry (an experiment with a part in the file adds one line here).
 */
export const CHART_FILE_PARTS: readonly ChartFilePart[] = [
  memoryChartFile,
  historyChartFile,
  behaviorChartFile,
];

/**
 * One experiment's part of the chart data, with its type: the part the run's analysis gave, or
 * the experiment's empty part when the run has none (as the file reads: empty lists).
 */
export function chartPartOf<K extends keyof ChartParts>(
  data: Pick<RunChartData, 'experiments'>,
  experimentId: K,
): ChartParts[K] {
  const part = data.experiments[experimentId] as ChartParts[K] | undefined;
  if (part !== undefined) return part;
  const file = CHART_FILE_PARTS.find((p) => p.experimentId === experimentId);
  return file?.empty as ChartParts[K];
}

/**
 * The output adapter: the chart data as `chart-data.json` holds it, each registered experiment's
 * part (`CHART_FILE_PARTS` of `@chi/analysis/internal`) spread into the top level under its published field names (the
 * file's bytes are its canonical JSON, so key order does not matter). The part of an experiment
 * the file does not register stays out of it (the file's schema is strict): such an experiment
 * publishes its own files.
 */
export function chartDataFile(
  data: RunChartData,
  parts: readonly ChartFilePart[] = CHART_FILE_PARTS,
): ChartData {
  const { experiments, ...run } = data;
  const registered = parts.flatMap((part) => {
    const value = experiments[part.experimentId];
    return value === undefined ? [] : [value];
  });
  return Object.assign({}, run, ...registered) as ChartData;
}

/**
 * The inverse adapter: the chart data of a `chart-data.json` (as `ChartDataSchema` parsed it),
 * each registered experiment's fields gathered under its ID (`CHART_FILE_PARTS` of `@chi/analysis/internal`).
 */
export function runChartData(
  file: ChartData,
  parts: readonly ChartFilePart[] = CHART_FILE_PARTS,
): RunChartData {
  const rest: Record<string, unknown> = { ...file };
  const experiments: Record<string, object> = {};
  for (const part of parts) {
    const fields: Record<string, unknown> = {};
    for (const field of part.fields) {
      if (!(field in rest)) continue;
      fields[field] = rest[field];
      delete rest[field];
    }
    if (Object.keys(fields).length > 0) experiments[part.experimentId] = fields;
  }
  return { ...rest, experiments } as RunChartData;
}
