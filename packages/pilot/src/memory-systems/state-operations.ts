import {
  type ChatModel,
  type ChatResult,
  type InstanceState,
  InvalidArgumentError,
  type PlannedRequest,
  type SystemSpec,
} from '@chi/spec';
import { isInfrastructureFailure } from '@chi/spec/internal';
import type { RunSession } from '../runner/run-session';
import { instanceRootSha256, requestInstance } from './instance-identity';
import { endsInstance } from './instance-lanes';
import { carriesNotes } from './request-identity';

/** The exported states of one session, by the request after which each was exported. */
const exportedStates = new WeakMap<object, Map<string, InstanceState>>();

function statesOf(session: RunSession): Map<string, InstanceState> {
  let states = exportedStates.get(session);
  if (states === undefined) {
    states = new Map();
    exportedStates.set(session, states);
  }
  return states;
}

function controlOf(model: ChatModel, request: PlannedRequest) {
  if (model.instanceControl === undefined)
    throw new InvalidArgumentError(
      'instanceControl',
      `request ${request.requestId} needs a state operation, but its system offers no instance control (the plan should not hold it)`,
    );
  return model.instanceControl;
}

/**
 * Under the `system` memory policy, a request's `notebookSource` is a state operation on its
 * instance, done with the system's instance-control extension just before the request is sent:
 * `empty` erases the instance (erasure), `request` imports the state exported right after the
 * named request resolved (sham erasure: the arm's own state from before the operation call; swap:
 * the partner's). Under the notebook policy, or without a source, nothing happens.
 *
 * @throws InvalidArgumentError when the exported state is not held: it was lost with the process
 *   that exported it (a resume), and the arm cannot continue as planned
 */
export async function applyStateOperation(
  session: RunSession,
  request: PlannedRequest,
  system: SystemSpec,
  model: ChatModel,
): Promise<void> {
  const source = request.notebookSource;
  if (source === undefined || carriesNotes(system)) return;
  const { instanceId } = requestInstance(request, instanceRootSha256(session.run.frozen));
  if (source.kind === 'empty') return controlOf(model, request).erase(instanceId);
  if (source.kind !== 'request')
    throw new InvalidArgumentError(
      'notebookSource',
      `request ${request.requestId}: a ${source.kind} state is not applicable under memory policy system`,
    );
  const state = statesOf(session).get(source.requestId);
  if (state === undefined)
    throw new InvalidArgumentError(
      'notebookSource',
      `request ${request.requestId} imports the state exported after ${source.requestId}, which this process does not hold (exported states do not survive a restart): the arm cannot continue as planned`,
    );
  await controlOf(model, request).importState(instanceId, state);
}

/**
 * Under the `system` memory policy, exports the instance's state right after a request that a
 * later request names as its source resolved (where the notebook protocol would copy the
 * notebook), and keeps it for {@link applyStateOperation}.
 */
export async function exportIfNamed(
  session: RunSession,
  ordinal: number,
  request: PlannedRequest,
  system: SystemSpec,
  model: ChatModel,
): Promise<void> {
  if (carriesNotes(system) || !session.run.plan.isNotebookSource(ordinal)) return;
  const { instanceId } = requestInstance(request, instanceRootSha256(session.run.frozen));
  statesOf(session).set(request.requestId, await controlOf(model, request).exportState(instanceId));
}

/**
 * Bytes stored (issue 36): under the `system` memory policy, for a system that declares the
 * instance-control extension, the bytes its instance holds at the end of its trajectory, read
 * from an export right after the instance's last planned session resolved (one session at a time
 * per instance, so nothing else reaches it later in the run). Recorded on that session's
 * `after_response`. Nothing for any other request, for a system without the extension (its bytes
 * are not reported by the system), or when the session failed in transit (the endpoint may be
 * unreachable; the instance's bytes are then not recorded, never guessed). The export only reads.
 */
export async function bytesStoredAtEnd(
  session: RunSession,
  ordinal: number,
  request: PlannedRequest,
  system: SystemSpec,
  model: ChatModel,
  result: ChatResult,
): Promise<{ bytesStored?: number }> {
  if (carriesNotes(system) || system.instanceControl === undefined) return {};
  if (model.instanceControl === undefined || isInfrastructureFailure(result)) return {};
  if (!endsInstance(session, ordinal)) return {};
  const { instanceId } = requestInstance(request, instanceRootSha256(session.run.frozen));
  const exported = await model.instanceControl.exportState(instanceId);
  return { bytesStored: exported.bytesStored };
}
