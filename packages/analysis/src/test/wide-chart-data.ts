import type { ChartData } from '../chart-data';
import { type RunChartData, runChartData } from '../chart-parts';
import { sampleChartDataFile } from './sample-chart-data';

/**
 * The sample chart data with the pilot's five scripted systems: every row of capacity-keeper is
 * copied to latest-wins, confabulator and abstainer, so identical series exist by construction.
 * When `live` is set the copies are live models with tokens, cost and latency.
 */
export function fiveSystemChartData(options: { readonly live?: boolean } = {}): RunChartData {
  return runChartData(fiveSystemChartDataFile(options));
}

/** {@link fiveSystemChartData} in the layout of `chart-data.json`. */
export function fiveSystemChartDataFile(options: { readonly live?: boolean } = {}): ChartData {
  const data = sampleChartDataFile();
  const copies = ['latest-wins', 'confabulator', 'abstainer'];
  const copy = <T extends { readonly systemId: string }>(rows: readonly T[]): T[] => [
    ...rows,
    ...copies.flatMap((id) =>
      rows.filter((r) => r.systemId === 'capacity-keeper').map((r) => ({ ...r, systemId: id })),
    ),
  ];
  const live = options.live === true;
  return {
    ...data,
    run: {
      ...data.run,
      systems: [
        ...data.run.systems,
        ...copies.map((id) => ({
          ...(data.run.systems[0] as ChartData['run']['systems'][number]),
          id,
          model: live ? `vendor/${id}` : `scripted/${id}`,
          kind: live ? 'openrouter' : 'scripted',
          evidenceClass: live ? ('live_model' as const) : ('scripted_baseline' as const),
          uncappedNotebook: false,
        })),
      ],
    },
    memory: copy(data.memory),
    eimc: copy(data.eimc),
    resources: copy(data.resources).map((r) =>
      live && copies.includes(r.systemId)
        ? { ...r, promptTokens: 1200, completionTokens: 300, costUsd: 0.012, latencyMsMedian: 850 }
        : r,
    ),
    history: copy(data.history),
    historyDistances: copy(data.historyDistances),
    historyDynamics: copy(data.historyDynamics),
    historyVectors: copy(data.historyVectors),
    behavior: copy(data.behavior),
    taxonomy: copy(data.taxonomy),
  };
}
