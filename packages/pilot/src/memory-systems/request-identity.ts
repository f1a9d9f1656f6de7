import type { ChatInstance, PlannedRequest, SystemSpec } from '@chi/spec';
import type { RunSession } from '../runner/run-session';
import { instanceRootSha256, memoryPolicyOf, requestInstance } from './instance-identity';

/** Whether the runner carries notes in this system's prompts (the `notebook` memory policy). */
export function carriesNotes(system: Pick<SystemSpec, 'memory'>): boolean {
  return memoryPolicyOf(system) === 'notebook';
}

/**
 * The `instance` field of a request sent by the pilot runner: the request's instance and session
 * under the `system` memory policy, nothing under `notebook` (so those requests keep their shape).
 */
export function instanceOf(
  session: Pick<RunSession, 'run'>,
  request: PlannedRequest,
  system: Pick<SystemSpec, 'memory'>,
): { instance?: ChatInstance } {
  if (carriesNotes(system)) return {};
  return { instance: requestInstance(request, instanceRootSha256(session.run.frozen)) };
}
