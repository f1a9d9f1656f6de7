import type { ExperimentKind, RequestTask } from '@chi/spec';
import { z } from 'zod';
import { defineExperiment, type Experiment } from '../experiments/experiment';
import { plannedRequest, requestNonce } from '../plan/plan-request';

/**
 * A test module added from outside the pilot: one request per world (step `say`, task and kind
 * equal to its ID), no notebook, its parameters under `manifest.experiments.added[id]`. A test
 * gives its parameters, their schema and its render, and overrides any other member.
 */
export function oneRequestExperiment<Params>(args: {
  id: `x-${string}`;
  params: Params;
  parameters: z.ZodType<Params>;
  render: Experiment<Params>['render'];
  promptTemplates?: Experiment<Params>['promptTemplates'];
}): Experiment<Params> {
  const { id, params } = args;
  const task = id as RequestTask;
  const kind = id as ExperimentKind;
  return defineExperiment<Params>({
    specificationVersion: 'chi-experiment-v1',
    id,
    title: `${id} (test module)`,
    slots: [{ axis: 'I', coverage: 'partial', what: 'nothing: a test module' }],
    procedure: 'One request per world.',
    taskScore: 'None.',
    features: [
      {
        id: `${id}-features`,
        version: 1,
        features: ['done'],
        coding: 'test only',
        schema: z.strictObject({ done: z.boolean() }),
      },
    ],
    control: 'None.',
    seedPassages: [{ source: 'framework', quote: 'Each states a procedure' }],
    parameters: args.parameters,
    kinds: [kind],
    tasks: [task],
    ...(args.promptTemplates === undefined ? {} : { promptTemplates: args.promptTemplates }),
    parametersFrom: () => params,
    parametersOf: (manifest) => (manifest.experiments.added?.[id] as Params | undefined) ?? null,
    plan: ({ worldSeed }) => [
      {
        block: { blockId: `${id}.w${worldSeed}`, experiment: kind, worldSeed, load: null },
        requestsFor: (systemId) => [
          plannedRequest({
            requestId: `${systemId}.${id}.w${worldSeed}.say`,
            systemId,
            blockId: `${id}.w${worldSeed}`,
            experiment: kind,
            task,
            step: 'say',
            worldSeed,
            dependsOn: [],
            writesNotebook: false,
            nonce: requestNonce(worldSeed, `${id}.w${worldSeed}`, 'say'),
          }),
        ],
      },
    ],
    render: args.render,
  });
}
