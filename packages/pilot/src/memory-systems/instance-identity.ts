import type { ChatInstance, PlannedRequest, RunManifest } from '@chi/spec';

// The memory policy is the built-in folders' (`@chi/experiments`): memory and history render by it.
export { type MemoryPolicy, memoryPolicyOf } from '@chi/experiments/internal';

/** The planned-request fields that decide which memory instance a request belongs to. */
export type InstanceFields = Pick<
  PlannedRequest,
  'systemId' | 'blockId' | 'experiment' | 'condition' | 'history' | 'requestId'
>;

/**
 * The part of an instance ID that the plan decides: which requests share one memory.
 *
 * - a memory block's encode and its probes (`memory.w<seed>.n<load>`), and the transcript-replay
 *   probes of that block in an instance of their own (`.../replay`: the transcript is in context);
 * - each control of a controls block in its own instance, never written to (`.../blank`,
 *   `.../oracle`): the blank control asks a memory that was shown nothing;
 * - each history arm of a world across its checkpoints (`history.w<seed>/A`, `/B`, `/A2`);
 * - each divergence instance (system, world, arm) across its checkpoints (its block,
 *   `divergence.w<seed>.<arm>.<systemId>`): its erasure, sham erasure and swap are state
 *   operations on that instance (`state-operations.ts`);
 * - every other request (behavioral halves, opt-in experiments) a fresh instance of its own, named
 *   by its request ID: nothing is meant to carry over.
 */
export function instanceScope(request: InstanceFields): string {
  if (request.experiment === 'memory')
    return request.condition === 'replay' ? `${request.blockId}/replay` : request.blockId;
  if (request.experiment === 'controls') return `${request.blockId}/${request.condition}`;
  if (request.experiment === 'history') return `${request.blockId}/${request.history}`;
  if (request.experiment === 'divergence') return request.blockId;
  return request.requestId;
}

/**
 * The instance and session of a request under the `system` memory policy. The instance ID is
 * `chi-<first 12 hex of the manifest hash>/<systemId>/<scope>` (see {@link instanceScope}): stable
 * across resumes of one run (the manifest is frozen), distinct between runs (the manifest holds its
 * creation time) and between systems, so one server can hold many runs and systems at once. The
 * session ID is the registered request's ID.
 *
 * @example
 * ```ts
 * requestInstance(request, manifestSha256);
 * // { instanceId: 'chi-3f2a9c0b1d4e/window/memory.w1.n32', sessionId: 'window.memory.w1.n32.encode' }
 * ```
 */
export function requestInstance(request: InstanceFields, manifestSha256: string): ChatInstance {
  return {
    instanceId: `chi-${manifestSha256.slice(0, 12)}/${request.systemId}/${instanceScope(request)}`,
    sessionId: request.requestId,
  };
}

/**
 * The hash an instance ID is rooted in: the run manifest's, or for a session of a study the study
 * manifest's (`manifest.study`), so each instance of a study continues under the same ID from
 * session to session (docs/protocol.md, "Studies") while its sessions are separate runs.
 */
export function instanceRootSha256(frozen: {
  readonly manifest: Pick<RunManifest, 'study'>;
  readonly sha256: string;
}): string {
  return frozen.manifest.study?.studyManifestSha256 ?? frozen.sha256;
}
