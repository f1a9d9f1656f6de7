import { chartPartOf } from '@chi/analysis';
import type { ExperimentHeadline } from './metric-list';

/** The behavioral logs' headline: each indicator. */
export const behaviorHeadline: ExperimentHeadline = {
  experimentId: 'behavior',
  metrics(list, _manifest, data, systemId) {
    for (const point of chartPartOf(data, 'behavior').behavior.filter(
      (p) => p.systemId === systemId,
    ))
      list.interval(`behavior ${point.indicator}`, point.value, {
        worlds: point.value.worlds,
        intervalNote: point.value.intervalNote,
      });
  },
};
