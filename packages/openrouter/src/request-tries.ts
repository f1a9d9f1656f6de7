import type { TryRecord } from '@chi/spec/internal';
import { exchange } from './exchange';
import { scrubSecrets } from './redact';
import { replyByteLimit } from './reply-limit';
import type { RequestState, TransportContext } from './request-state';
import { timeLeftMs } from './request-state';
import { planRetry } from './retry-policy';
import { settleTry } from './try-accounting';
import { classifyExchange, type TryOutcome } from './try-outcome';

/** Whether the request goes on to another try. */
type Next = 'retry' | 'end';

/**
 * Reserves the try's upper bound with the ledger. Returns the reservation ID (null without a
 * ledger), or `refused` after logging the refusal as the try and the request's end.
 */
async function reserveTry(
  context: TransportContext,
  state: RequestState,
  tryIndex: number,
  tryStartedAt: string,
): Promise<{ readonly reservationId: string | null } | 'refused'> {
  if (context.ledger === undefined) return { reservationId: null };
  const reservation = await context.ledger.reserve({
    attemptId: `${state.requestId}#${tryIndex}`,
    amountUsd: state.amountUsd,
  });
  if (!reservation.ok) {
    const detail = scrubSecrets(`budget refused: ${reservation.reason}`, context.secrets);
    state.tries.push({
      tryIndex,
      startedAt: tryStartedAt,
      status: null,
      failure: 'budget_refused',
      detail,
      waitMs: null,
      waitSource: null,
    });
    state.endFailure = { failure: 'budget_refused', detail };
    return 'refused';
  }
  state.reservedUsd += reservation.amountUsd;
  return { reservationId: reservation.reservationId };
}

/** The log record of a finished try (its wait is added when a retry follows). */
function tryRecord(
  context: TransportContext,
  tryIndex: number,
  tryStartedAt: string,
  outcome: TryOutcome,
  accountingNote: string | null,
): TryRecord {
  const tryDetail = scrubSecrets(
    [outcome.detail, ...(outcome.reading?.notes ?? []), accountingNote]
      .filter((part) => part !== null)
      .join('; '),
    context.secrets,
  );
  return {
    tryIndex,
    startedAt: tryStartedAt,
    status: outcome.status,
    failure: outcome.failure,
    detail: tryDetail === '' ? null : tryDetail,
    waitMs: null,
    waitSource: null,
  };
}

/**
 * After a retryable try: plans the retry, logs its wait on the try and waits, or ends the request
 * (retries used up, Retry-After too long, the deadline too near, or the caller aborting the wait).
 */
async function waitBeforeRetry(
  context: TransportContext,
  state: RequestState,
  tryIndex: number,
  outcome: TryOutcome,
  record: TryRecord,
): Promise<Next> {
  const plan = planRetry({
    tryIndex,
    maxRetries: context.maxRetries,
    retryAfter: outcome.retryAfter,
    retryAfterCapMs: context.retryAfterCapMs,
    backoffMs: context.backoffMs,
    nowMs: context.now().getTime(),
  });
  if (!plan.retry) {
    state.notes.push(plan.reason);
    return 'end';
  }
  if (plan.waitMs >= timeLeftMs(context, state)) {
    // Retrying would start after the request's deadline: the request ends as the
    // infrastructure failure that asked for the retry (the model never had a clean try).
    state.notes.push(
      `no retry: the ${context.deadlineMs} ms request deadline leaves ${Math.max(0, timeLeftMs(context, state))} ms, less than the ${plan.waitMs} ms wait`,
    );
    return 'end';
  }
  state.tries[state.tries.length - 1] = { ...record, waitMs: plan.waitMs, waitSource: plan.source };
  try {
    await context.sleep(plan.waitMs, state.signal);
  } catch {
    // The wait was logged on the try before it; the next try is never made.
    state.tries[state.tries.length - 1] = {
      ...record,
      waitMs: null,
      waitSource: null,
      detail: `${record.detail ?? ''}; aborted by the caller during the ${plan.waitMs} ms wait`,
    };
    state.endFailure = {
      failure: 'timeout',
      detail: 'aborted by the caller during the wait before a retry',
    };
    return 'end';
  }
  return 'retry';
}

/** One try: reserve, exchange within what is left of the deadline, classify, settle, log. */
async function runTry(
  context: TransportContext,
  state: RequestState,
  tryIndex: number,
): Promise<Next> {
  if (state.signal?.aborted === true) {
    state.endFailure = {
      failure: 'timeout',
      detail: `aborted by the caller before try ${tryIndex} was sent`,
    };
    return 'end';
  }
  const tryStartedAt = context.now().toISOString();
  const reserved = await reserveTry(context, state, tryIndex, tryStartedAt);
  if (reserved === 'refused') return 'end';
  const exchanged = await exchange(
    context,
    state.body,
    state.signal,
    timeLeftMs(context, state),
    replyByteLimit(state.cap),
    state.headers,
  );
  const outcome = classifyExchange(exchanged, { ...context, cap: state.cap });
  const previous = state.last;
  state.last = outcome;
  // A retry's window is what is left of the request's deadline, always less than a full one.
  if (exchanged.kind === 'timeout' && previous !== null) {
    // A retry cut short by the request's deadline: the model never had a try free of the
    // infrastructure failure that forced the retry, so that failure ends the request.
    state.endFailure = {
      failure: previous.failure,
      detail: `${previous.detail ?? previous.failure}; the ${context.deadlineMs} ms request deadline passed during retry ${tryIndex}`,
    };
  }
  const accounted = await settleTry(
    context,
    outcome,
    reserved.reservationId,
    state.amountUsd,
    state.signal,
  );
  state.chargedUsd += accounted.chargedUsd;
  if (accounted.note !== null) state.notes.push(accounted.note);
  const record = tryRecord(context, tryIndex, tryStartedAt, outcome, accounted.note);
  state.tries.push(record);
  if (!outcome.retryable) return 'end';
  return waitBeforeRetry(context, state, tryIndex, outcome, record);
}

/**
 * Makes the tries of one request until one ends it: retries only HTTP 429/5xx and pre-response
 * connection failures, at most `maxRetries` times, within the request's one deadline.
 */
export async function runTries(context: TransportContext, state: RequestState): Promise<void> {
  for (let tryIndex = 0; ; tryIndex++) {
    if ((await runTry(context, state, tryIndex)) === 'end') return;
  }
}
