import { defineExperimentScorer } from '@chi/experiment';
import { type TallyParams, TallyParamsSchema } from './experiment';
import { tallyWorld } from './world';

function recalled(reply: string | null): number | null {
  if (reply === null) return null;
  try {
    const red = (JSON.parse(reply) as { red?: unknown }).red;
    return typeof red === 'number' ? red : null;
  } catch {
    return null;
  }
}

/** Scores a tally world: 1 when the recalled count is the true count (regenerated from the seed). */
export const tallyScorer = defineExperimentScorer<TallyParams>({
  specificationVersion: 'chi-scorer-v1',
  experimentId: 'tally',
  title: 'Tally (test fixture)',
  parametersOf: (manifest) => {
    const raw = (manifest.experiments as Readonly<Record<string, unknown>>).tally;
    return raw === undefined ? null : TallyParamsSchema.parse(raw);
  },
  notes: ['A test fixture: whether the count recalled from the notes is the true count.'],
  columns: ['correct'],
  estimands: [{ column: 'correct', label: 'count recalled correctly' }],
  scoreWorld: ({ params, worldSeed, requests }) => {
    const truth = tallyWorld(worldSeed, params.items).red;
    const check = requests.find((request) => request.request.task === 'tally_check');
    const correct = recalled(check?.reply ?? null) === truth ? 1 : 0;
    return { values: { correct }, traces: [{ worldSeed, truth, correct }] };
  },
});
