import {
  defineExperiment,
  type ParameterFlag,
  plannedRequest,
  requestNonce,
} from '@chi/experiment';
import { type HistoryId, InvalidArgumentError, type PlannedRequest } from '@chi/spec';
import {
  HISTORY_IDS,
  type HistoryExperimentParams,
  HistoryExperimentParamsSchema,
} from '@chi/spec/internal';
import { z } from 'zod';
import type { BuiltInHost } from '../built-in-experiment';
import { manifestPolicy } from '../memory-policy';
import { HISTORY_PROMPT_TEMPLATES } from './prompts';
import { renderHistoryProbe, renderHistoryUpdate } from './render';

/** The checkpoints of a history trajectory and the invocation that produces each notebook. */
const UPDATE_CHECKPOINTS: readonly number[] = [1, 2, 3, 4];
const PROBE_CHECKPOINTS: readonly number[] = [0, 1, 2, 3, 4];

const rate = z.number().min(0).max(1);
const coordinate = z.union([z.literal(0), z.literal(0.5), z.literal(1)]).nullable();

/** Notebook key of a history trajectory at a checkpoint: `history|<seed>|<H>|<k>`. */
export function historyNotebookKey(
  request: Pick<PlannedRequest, 'worldSeed' | 'history' | 'checkpoint'>,
): string {
  return `history|${request.worldSeed}|${request.history}|${request.checkpoint}`;
}

/**
 * The step whose nonce a history step uses: A2's steps use A's (`A2.c1.update` -> `A.c1.update`),
 * because the same-history control must repeat A's requests byte for byte.
 */
export function nonceStep(step: string): string {
  return step.startsWith('A2.') ? `A.${step.slice(3)}` : step;
}

function historyRequests(
  systemId: string,
  unit: string,
  worldSeed: number,
  history: HistoryId,
): PlannedRequest[] {
  const updateId = (checkpoint: number) => `${systemId}.${unit}.${history}.c${checkpoint}.update`;
  const common = { systemId, blockId: unit, worldSeed, experiment: 'history' as const, history };
  const list: PlannedRequest[] = [];
  for (const checkpoint of PROBE_CHECKPOINTS) {
    if (checkpoint > 0 && UPDATE_CHECKPOINTS.includes(checkpoint)) {
      const step = `${history}.c${checkpoint}.update`;
      list.push(
        plannedRequest({
          ...common,
          requestId: updateId(checkpoint),
          task: 'history_update',
          step,
          checkpoint,
          dependsOn: checkpoint === 1 ? [] : [updateId(checkpoint - 1)],
          writesNotebook: true,
          nonce: requestNonce(worldSeed, unit, nonceStep(step)),
        }),
      );
    }
    const step = `${history}.c${checkpoint}.probe`;
    list.push(
      plannedRequest({
        ...common,
        requestId: `${systemId}.${unit}.${step}`,
        task: 'history_probe',
        step,
        checkpoint,
        dependsOn: checkpoint === 0 ? [] : [updateId(checkpoint)],
        writesNotebook: false,
        nonce: requestNonce(worldSeed, unit, nonceStep(step)),
      }),
    );
  }
  return list;
}

/**
 * The longitudinal history experiment: histories A, B and the same-history control A2 over five
 * checkpoints, each carried by an external notebook.
 */
export const historyExperiment = defineExperiment<HistoryExperimentParams, BuiltInHost>({
  specificationVersion: 'chi-experiment-v1',
  id: 'history',
  title: 'Longitudinal history (experience divergence, continuity, correction)',
  slots: [
    {
      // The seeds describe this as a CHIS trajectory experiment ("shorter than the v0.1
      // divergence protocol"), not as one of the 30 panel tests: it fills no slot.
      axis: 'M',
      coverage: 'partial',
      what: 'history-dependent decisions carried by a notebook: divergence D(A,B)-D(A,A2), continuity, correction response (a shortened CHIS divergence experiment)',
    },
  ],
  procedure:
    'Four binary environments per world; histories A and B carry opposite dated evidence, A2 repeats A. Checkpoint 0 has no evidence, 1 ingests the history, 2 and 3 are neutral maintenance invocations, 4 ingests an authoritative correction; probe clones answer blind decision questions from the notes at every checkpoint.',
  taskScore:
    'Per checkpoint: accuracy against the warranted answer (unknown at checkpoint 0, the corrected rule at 4), explicit-unknown rate and invalid rate.',
  features: [
    {
      id: 'history-profile',
      version: 1,
      features: ['accuracy', 'explicitUnknownRate', 'invalidRate'],
      coding: 'Rates over the four environments of a checkpoint against the warranted answers.',
      schema: z.strictObject({ accuracy: rate, explicitUnknownRate: rate, invalidRate: rate }),
    },
    {
      id: 'history-decision-vector',
      version: 1,
      features: ['env-1', 'env-2', 'env-3', 'env-4'],
      coding:
        'Option A = 0, unknown = 0.5, option B = 1; invalid = null (excluded from distances).',
      schema: z.tuple([coordinate, coordinate, coordinate, coordinate]),
    },
  ],
  control:
    'History A2 repeats A byte for byte (same nonces): D(A, A2) is the same-history stochastic control that D(A, B) is corrected by.',
  seedPassages: [
    {
      source: 'protocol',
      quote:
        'Two histories A and B carry opposite evidence, and A2 repeats A as a same-history stochastic control.',
    },
    {
      source: 'framework',
      quote:
        'The primary quantity is the distance between different-history pairs minus the corresponding distance between same-history control pairs, replicated over independently initialized pairs.',
    },
  ],
  parameters: HistoryExperimentParamsSchema.meta({
    cli: {
      flag: 'no-history',
      option: 'history',
      kind: 'negation',
      help: 'without the history experiment',
    } satisfies ParameterFlag,
  }),
  kinds: ['history'],
  tasks: ['history_update', 'history_probe'],
  parametersFrom: (settings) => (settings.history ? { checkpoints: 5 } : null),
  parametersOf: (manifest) => manifest.experiments.history,
  plan: ({ worldSeed }) => {
    const unit = `history.w${worldSeed}`;
    return [
      {
        block: { blockId: unit, experiment: 'history', worldSeed, load: null },
        requestsFor: (systemId) =>
          HISTORY_IDS.flatMap((history) => historyRequests(systemId, unit, worldSeed, history)),
      },
    ];
  },
  render: ({ request, manifest, worlds, prompts, notes }) => {
    const world = worlds.history.get(request.worldSeed);
    const { history, checkpoint } = request;
    if (world === undefined || history === null || checkpoint === null)
      throw new InvalidArgumentError('worlds', `no history world for ${request.requestId}`);
    if (request.task === 'history_probe') {
      return renderHistoryProbe(prompts, {
        environments: world.environments,
        notes: notes(request.systemId, historyNotebookKey(request)),
        nonce: request.nonce,
        policy: manifestPolicy(manifest, request.systemId),
      });
    }
    const step = world.histories[history][checkpoint];
    if (step === undefined)
      throw new InvalidArgumentError(
        'worlds',
        `history ${history} has no checkpoint ${checkpoint}`,
      );
    return renderHistoryUpdate(prompts, {
      environments: world.environments,
      notes: notes(
        request.systemId,
        historyNotebookKey({ ...request, checkpoint: checkpoint - 1 }),
      ),
      step,
      nonce: request.nonce,
      notebookCapBytes: manifest.notebookCapBytes,
      policy: manifestPolicy(manifest, request.systemId),
    });
  },
  notebookKey: historyNotebookKey,
  promptTemplates: HISTORY_PROMPT_TEMPLATES,
  startingNotebooks: (manifest) =>
    manifest.worldSeeds.flatMap((worldSeed) =>
      HISTORY_IDS.map((history) => historyNotebookKey({ worldSeed, history, checkpoint: 0 })),
    ),
});
