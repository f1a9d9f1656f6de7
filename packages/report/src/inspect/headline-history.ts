import { chartPartOf } from '@chi/analysis';
import { LEGACY_PRIMARY_CHECKPOINT } from '../scoring/analyze-run';
import type { ExperimentHeadline } from './metric-list';

/** The history logs' headline: the excess divergence at the preregistered checkpoint. */
export const historyHeadline: ExperimentHeadline = {
  experimentId: 'history',
  metrics(list, manifest, data, systemId) {
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
  },
};
