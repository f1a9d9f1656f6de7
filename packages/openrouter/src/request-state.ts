import type { ChatMessage, FailureClass } from '@chi/spec';
import type { TryRecord } from '@chi/spec/internal';
import type { KyInstance } from 'ky';
import type { ResolvedModelSettings } from './model-settings';
import type { TryOutcome } from './try-outcome';

/** Everything a transport's requests share: its resolved settings and its HTTP client. */
export interface TransportContext extends ResolvedModelSettings {
  /** The HTTP client (base URL and headers set). */
  readonly http: KyInstance;
}

/**
 * The state of one `generate` call, in one explicit object that each step of the request reads
 * and updates (the tries so far, the money, the last outcome and why the request ended).
 */
export interface RequestState {
  /** The caller's request ID (reservation attempt IDs are `<requestId>#<tryIndex>`). */
  readonly requestId: string;
  /** The checked messages. */
  readonly messages: readonly ChatMessage[];
  /** The output cap of this request. */
  readonly cap: number;
  /** The request body sent on every try. */
  readonly body: string;
  /** Headers of this request only (its memory instance, `instance-identity.ts`). */
  readonly headers: Readonly<Record<string, string>>;
  /** The USD reserved before each try. */
  readonly amountUsd: number;
  /** The caller's abort signal. */
  readonly signal: AbortSignal | undefined;
  /** When the request's one deadline passes, on the `now` clock. */
  readonly deadlineAtMs: number;
  /** Every try and wait so far. */
  readonly tries: TryRecord[];
  /** Notes for the failure detail (retry decisions, overcharges). */
  readonly notes: string[];
  /** USD reserved over all tries. */
  reservedUsd: number;
  /** USD charged over all tries. */
  chargedUsd: number;
  /** The outcome of the last try made. */
  last: TryOutcome | null;
  /** Why the request ended when not by its last try's outcome (abort, refusal, deadline). */
  endFailure: { failure: FailureClass; detail: string } | null;
}

/** What is left of the request's deadline, in ms (negative once it passed). */
export function timeLeftMs(context: Pick<TransportContext, 'now'>, state: RequestState): number {
  return state.deadlineAtMs - context.now().getTime();
}
