import { requestInputBytes } from '@chi/openrouter';
import { failpoint } from '@chi/report/internal';
import type { CanonicalPayload } from '@chi/run';
import { canonicalPayload } from '@chi/run/internal';
import {
  type ChatMessage,
  type ChatResult,
  ChatResultSchema,
  type PlannedRequest,
  parseWith,
  type RenderedRequest,
  type SystemSpec,
} from '@chi/spec';
import { failureCategory, isAccountFailure } from '@chi/spec/internal';
import { carriesNotes, instanceOf } from '../memory-systems/request-identity';
import {
  applyStateOperation,
  bytesStoredAtEnd,
  exportIfNamed,
} from '../memory-systems/state-operations';
import { renderPlannedRequest } from '../plan/render-planned';
import { recordOutcome, worldsFor } from './run-held-state';
import { modelOf } from './run-instance-models';
import { sourcedNotes } from './run-notebook-source';
import { keepNotebook, notebookText } from './run-notebooks';
import {
  ledgerStopReason,
  noteStop,
  type RunSession,
  reservesNothing,
  sessionProgress,
  unreservedCeilingStop,
} from './run-session';

/** The fields every attempt record of one attempt shares. */
interface AttemptBase {
  readonly kind: 'attempt';
  readonly manifestSha256: string;
  readonly attemptId: string;
  readonly requestId: string;
  readonly systemId: string;
  readonly blockId: string;
  readonly requestSha256: string;
  readonly inputBytes: number;
}

function retryWaits(result: ChatResult): number[] {
  return result.tries.flatMap((attempt) => (attempt.waitMs === null ? [] : [attempt.waitMs]));
}

/** Canonical payloads of shared renders (`sharedRender`), by their frozen message list. */
const encodedShared = new WeakMap<
  readonly ChatMessage[],
  { payload: CanonicalPayload; inputBytes: number }
>();

/**
 * The canonical payload (serialized and hashed once: the same text is the stored payload and its
 * address) and input bytes of a request's messages; a frozen list, rendered once for every
 * system of a block, is encoded once too.
 */
function encodedMessages(messages: readonly ChatMessage[]): {
  payload: CanonicalPayload;
  inputBytes: number;
} {
  const known = encodedShared.get(messages);
  if (known !== undefined) return known;
  const encoded = { payload: canonicalPayload(messages), inputBytes: requestInputBytes(messages) };
  if (Object.isFrozen(messages)) encodedShared.set(messages, encoded);
  return encoded;
}

/** Renders a request from the run's worlds, prompts and notebooks and stores what is sent. */
async function renderAndStore(
  session: RunSession,
  request: PlannedRequest,
  system: SystemSpec,
): Promise<{ messages: readonly ChatMessage[]; requestSha256: string; inputBytes: number }> {
  const { run } = session;
  const rendered = renderPlannedRequest({
    request,
    manifest: run.manifest,
    worlds: await worldsFor(session, request),
    prompts: run.prompts,
    // Under the `system` memory policy the system holds its memory: no notes are carried.
    notes: carriesNotes(system)
      ? sourcedNotes(session, request, (systemId, key) => notebookText(session, systemId, key))
      : () => '',
    experiments: run.experiments,
  });
  const { payload, inputBytes } = encodedMessages(rendered.messages);
  const requestSha256 = payload.sha256;
  const record: RenderedRequest = {
    kind: 'rendered-request',
    requestId: request.requestId,
    systemId: request.systemId,
    blockId: request.blockId,
    task: rendered.task,
    template: rendered.template,
    messages: [...rendered.messages],
    maxOutputTokens: system.maxOutputTokens,
    requestSha256,
    inputBytes,
  };
  await session.requestStore.write(record, payload);
  return { messages: rendered.messages, requestSha256, inputBytes };
}

/** The next attempt of a request: its ID and the fields its records share. */
function nextAttempt(
  session: RunSession,
  ordinal: number,
  request: PlannedRequest,
  rendered: { readonly requestSha256: string; readonly inputBytes: number },
): AttemptBase {
  const attemptNumber = (session.attemptsSoFar[ordinal] as number) + 1;
  session.attemptsSoFar[ordinal] = attemptNumber;
  return {
    kind: 'attempt',
    manifestSha256: session.run.frozen.sha256,
    attemptId: `${request.requestId}#${attemptNumber}`,
    requestId: request.requestId,
    systemId: request.systemId,
    blockId: request.blockId,
    requestSha256: rendered.requestSha256,
    inputBytes: rendered.inputBytes,
  };
}

/** One failure line of a resolved request that did not answer. */
async function logFailure(
  session: RunSession,
  request: PlannedRequest,
  attemptId: string,
  result: ChatResult,
): Promise<void> {
  if (result.failure === 'none') return;
  await session.failureWriter.append({
    kind: 'failure',
    at: session.now().toISOString(),
    requestId: request.requestId,
    attemptId,
    systemId: request.systemId,
    blockId: request.blockId,
    category: failureCategory(result) === 'infrastructure' ? 'infrastructure' : 'model',
    failure: result.failure,
    detail: result.failureDetail ?? result.failure,
    retryWaitsMs: retryWaits(result),
  });
}

/** Stops the session after a result no later request can get past (account, ceiling, ledger). */
async function noteResultStops(session: RunSession, result: ChatResult): Promise<void> {
  if (isAccountFailure(result)) {
    // A rejected key or exhausted credits: no later request can succeed, and credits are
    // never topped up automatically.
    noteStop(session, {
      kind: 'account',
      message: result.failureDetail ?? `HTTP ${result.tries[result.tries.length - 1]?.status}`,
    });
  }
  if (result.failure === 'budget_refused') {
    noteStop(session, {
      kind: 'ceiling',
      message: result.failureDetail ?? 'the budget ledger refused a reservation',
    });
  }
  const ledgerStop = await ledgerStopReason(session);
  if (ledgerStop !== null) noteStop(session, ledgerStop);
  const unreservedStop = await unreservedCeilingStop(session);
  if (unreservedStop !== null) noteStop(session, unreservedStop);
}

/**
 * Sends one request (by plan ordinal) and records it: the rendered request, `before_send`, the model's result,
 * `after_response`, its failure line, its notebook, its outcome, any stop it causes, the event.
 */
export async function runRequest(session: RunSession, ordinal: number): Promise<void> {
  const request = session.run.plan.requestAt(ordinal);
  const system = session.run.systems.get(request.systemId) as SystemSpec;
  const model = await modelOf(session, ordinal, request, system);
  const rendered = await renderAndStore(session, request, system);
  // Under memory policy system: the erasure, sham erasure or swap this request follows.
  await applyStateOperation(session, request, system, model);
  const base = nextAttempt(session, ordinal, request, rendered);
  // Sent once its before_send is durable in the log; the anchor covering it follows (issue 38).
  await session.attemptWriter.appendDurable({
    ...base,
    phase: 'before_send',
    at: session.now().toISOString(),
    result: null,
    // Absent for a request without one, so an attempt log of such requests keeps its bytes.
    ...(request.notebookSource === undefined ? {} : { notebookSource: request.notebookSource }),
  });
  await failpoint('pilot:in-flight');
  // The stop signal is deliberately not passed on: a request in flight runs to its own result
  // (or deadline), so an interruption is never recorded as the model's timeout.
  const raw = await model.generate({
    requestId: request.requestId,
    messages: rendered.messages,
    maxOutputTokens: system.maxOutputTokens,
    ...instanceOf(session, request, system),
  });
  const result = parseWith(
    ChatResultSchema,
    raw,
    `result of ${request.requestId} from ${model.modelId}`,
  );
  const stored = await bytesStoredAtEnd(session, ordinal, request, system, model, result);
  await session.attemptWriter.append({
    ...base,
    phase: 'after_response',
    at: session.now().toISOString(),
    result,
    ...stored,
  });
  session.chargedUsd += result.chargedUsd;
  if (reservesNothing(system)) session.unreservedChargedUsd += result.chargedUsd;
  await logFailure(session, request, base.attemptId, result);
  await keepNotebook(session, ordinal, request, result);
  await exportIfNamed(session, ordinal, request, system, model);
  // Resolved only now: a request that reads this one's notebook may be dispatched from here on.
  recordOutcome(session, ordinal, { kind: 'resolved', result });
  await noteResultStops(session, result);
  session.emit({
    type: 'request-finished',
    requestId: request.requestId,
    systemId: request.systemId,
    failure: result.failure,
    chargedUsd: result.chargedUsd,
    progress: await sessionProgress(session),
  });
}
