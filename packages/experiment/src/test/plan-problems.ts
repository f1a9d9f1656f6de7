import type { PlannedRequest } from '@chi/spec';
import { PlannedRequestSchema } from '@chi/spec/internal';
import type { AnyExperiment } from '../experiment';

/**
 * The planning part of the experiment contract, over the requests a runner planned for this
 * experiment alone (every system of a small run): each is a schema-valid `PlannedRequest`
 * registered once, with a task and kind the experiment declares; each dependency is planned
 * earlier as a note-writing request of the same system; a note-writing request has a
 * `notebookKey`; every system gets the same registered requests (the same steps, in order).
 * Returns every problem found.
 *
 * @example
 * ```ts
 * expect(experimentPlanProblems(myExperiment, plan.requests)).toEqual([]);
 * ```
 */
export function experimentPlanProblems(
  experiment: AnyExperiment,
  requests: readonly PlannedRequest[],
): string[] {
  const problems: string[] = [];
  if (requests.length === 0) problems.push('plan: registers no request');
  const seen = new Map<string, PlannedRequest>();
  for (const request of requests) {
    problems.push(...requestProblems(experiment, request, seen));
    seen.set(request.requestId, request);
  }
  const stepsOf = (systemId: string) =>
    requests.filter((request) => request.systemId === systemId).map((request) => request.step);
  const systems = [...new Set(requests.map((request) => request.systemId))];
  const first = JSON.stringify(stepsOf(systems[0] ?? ''));
  for (const systemId of systems.slice(1))
    if (JSON.stringify(stepsOf(systemId)) !== first)
      problems.push(`plan: ${systemId} does not get the same registered requests as ${systems[0]}`);
  return problems;
}

/** The problems of one planned request, given the requests planned before it. */
function requestProblems(
  experiment: AnyExperiment,
  request: PlannedRequest,
  seen: ReadonlyMap<string, PlannedRequest>,
): string[] {
  const problems: string[] = [];
  if (!PlannedRequestSchema.safeParse(request).success)
    problems.push(`plan: ${request.requestId} is not a PlannedRequest`);
  if (seen.has(request.requestId)) problems.push(`plan: ${request.requestId} registered twice`);
  if (!experiment.tasks.includes(request.task))
    problems.push(`plan: ${request.requestId} has task ${request.task}, not declared in tasks`);
  if (!experiment.kinds.includes(request.experiment))
    problems.push(`plan: ${request.requestId} has kind ${request.experiment}, not in kinds`);
  for (const dependency of request.dependsOn) {
    const before = seen.get(dependency);
    if (before === undefined)
      problems.push(`plan: ${request.requestId} depends on ${dependency}, not planned before it`);
    else if (before.systemId !== request.systemId || !before.writesNotebook)
      problems.push(
        `plan: ${request.requestId} depends on ${dependency}, which writes no notebook of its system`,
      );
  }
  if (request.writesNotebook && experiment.notebookKey === undefined)
    problems.push(`plan: ${request.requestId} writes a notebook but notebookKey is absent`);
  return problems;
}
