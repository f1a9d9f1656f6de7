import { InvalidArgumentError, type PlannedRequest, type RunManifest } from '@chi/spec';
import type { AnyExperiment, NotesLookup } from '../experiments/experiment';
import { experimentOf, REGISTERED_EXPERIMENTS } from '../experiments/registry';
import type { PromptSet } from '../prompts';
import type { RunWorlds } from '../run-folder/run-worlds';
import type { RenderedMessages } from './render-requests';

export type { NotesLookup } from '../experiments/experiment';

/**
 * Key of the notebook a request reads or writes, from the experiment that owns it: memory
 * `memory|<seed>|<load>`, history `history|<seed>|<H>|<k>`.
 */
export function notebookKey(
  request: Pick<
    PlannedRequest,
    | 'experiment'
    | 'task'
    | 'requestId'
    | 'worldSeed'
    | 'load'
    | 'history'
    | 'checkpoint'
    | 'blockId'
    | 'step'
  >,
  experiments: readonly AnyExperiment[] = REGISTERED_EXPERIMENTS,
): string {
  const experiment = experimentOf(request, experiments);
  if (experiment.notebookKey === undefined)
    throw new InvalidArgumentError(
      'request',
      `experiment ${experiment.id} keeps no notebook (request ${request.requestId})`,
    );
  return experiment.notebookKey(request);
}

/**
 * Renders a registered request from the run's worlds and the notebooks its dependencies wrote,
 * through the experiment module that owns its task. Only blind data reaches a prompt: memory
 * worlds pass through `blindView` (no roles, no key), history steps carry evidence only,
 * behavioral items carry their facts.
 */
export function renderPlannedRequest(args: {
  request: PlannedRequest;
  manifest: RunManifest;
  worlds: RunWorlds;
  prompts: PromptSet;
  notes: NotesLookup;
  experiments?: readonly AnyExperiment[];
}): RenderedMessages {
  const { request, manifest } = args;
  if (request.task === 'smoke')
    throw new InvalidArgumentError('request', 'smoke requests are not part of a run plan');
  const experiment = experimentOf(request, args.experiments ?? REGISTERED_EXPERIMENTS);
  const params = experiment.parametersOf(manifest);
  if (params === null)
    throw new InvalidArgumentError(
      'manifest',
      `request ${request.requestId} belongs to ${experiment.id}, which the manifest does not include`,
    );
  return experiment.render({ ...args, params });
}
