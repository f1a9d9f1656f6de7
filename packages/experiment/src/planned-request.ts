import type { PlannedRequest } from '@chi/spec';
import { sha256OfText } from './prompt-text';

// How an experiment builds its registered requests: the nonce every system shares and the one
// field order of `plan.json`.

/**
 * The nonce of a registered request: the first 16 hex digits of
 * SHA-256(`<worldSeed>|<unit>|<step>`). It depends on nothing system-specific, so every system
 * gets byte-identical prompts for the same registered request. History A2 repeats A exactly, so
 * its steps take A's nonce (see `nonceStep`): an A2 request is byte-identical to its A
 * request, and D(A, A2) measures sampling noise alone.
 */
export function requestNonce(worldSeed: number, unit: string, step: string): string {
  return sha256OfText(`${worldSeed}|${unit}|${step}`).slice(0, 16);
}

/** The fields an experiment sets on a registered request; the rest default to null. */
export type PlannedRequestFields = Pick<
  PlannedRequest,
  | 'systemId'
  | 'blockId'
  | 'worldSeed'
  | 'requestId'
  | 'experiment'
  | 'task'
  | 'step'
  | 'dependsOn'
  | 'writesNotebook'
  | 'nonce'
> &
  Partial<
    Pick<
      PlannedRequest,
      | 'load'
      | 'condition'
      | 'batch'
      | 'history'
      | 'checkpoint'
      | 'half'
      | 'wording'
      | 'notebookSource'
    >
  >;

/**
 * A registered request with its fields in the one order `plan.json` has always written them
 * (where the request is, then what it is, then what it needs): the plan file's bytes, and with
 * them `manifest.planSha256`, do not depend on which experiment module built the request.
 */
export function plannedRequest(fields: PlannedRequestFields): PlannedRequest {
  return {
    systemId: fields.systemId,
    blockId: fields.blockId,
    worldSeed: fields.worldSeed,
    load: fields.load ?? null,
    condition: fields.condition ?? null,
    batch: fields.batch ?? null,
    history: fields.history ?? null,
    checkpoint: fields.checkpoint ?? null,
    half: fields.half ?? null,
    requestId: fields.requestId,
    experiment: fields.experiment,
    task: fields.task,
    step: fields.step,
    dependsOn: fields.dependsOn,
    writesNotebook: fields.writesNotebook,
    nonce: fields.nonce,
    // Absent unless set, so a plan without a second wording keeps its bytes.
    ...(fields.wording === undefined ? {} : { wording: fields.wording }),
    ...(fields.notebookSource === undefined ? {} : { notebookSource: fields.notebookSource }),
  };
}
