import type { AnyExperiment } from '../experiment';

const ID_PATTERN = /^[a-z][a-z0-9-]*$/;

/**
 * The declarative part of the experiment contract: what the framework asks every template to
 * state ("Each states a procedure, task score, behavioral features and a control condition"),
 * the axis slots, a quoted seed passage, the version marker, a kebab-case ID, and at least one
 * task and planned kind. Returns every problem found (empty: the declarations are complete).
 *
 * @example
 * ```ts
 * expect(experimentDeclarationProblems(myExperiment)).toEqual([]);
 * ```
 */
export function experimentDeclarationProblems(experiment: AnyExperiment): string[] {
  const problems: string[] = [];
  if (experiment.specificationVersion !== 'chi-experiment-v1')
    problems.push(`specificationVersion is ${JSON.stringify(experiment.specificationVersion)}`);
  if (!ID_PATTERN.test(experiment.id))
    problems.push(`id ${JSON.stringify(experiment.id)} must match ${ID_PATTERN.source}`);
  for (const field of ['title', 'procedure', 'taskScore', 'control'] as const)
    if (experiment[field].trim() === '') problems.push(`${field} is empty`);
  if (experiment.slots.length === 0) problems.push('slots: declares no axis');
  if (experiment.seedPassages.length === 0 || experiment.seedPassages.some((p) => p.quote === ''))
    problems.push('seedPassages: quote the seed passage it implements');
  if (experiment.features.length === 0) problems.push('features: declares no feature vector');
  const featureIds = experiment.features.map((feature) => feature.id);
  if (new Set(featureIds).size !== featureIds.length) problems.push('features: duplicate IDs');
  if (experiment.tasks.length === 0) problems.push('tasks: declares no request task');
  if (experiment.kinds.length === 0) problems.push('kinds: declares no planned experiment kind');
  return problems;
}
