import type { ChatResult, FailureClass } from '@chi/spec';
import { matchesProviderSlug, providerSlugFor } from './catalog';
import { UNKNOWN_USAGE } from './completion-response';
import { scrubSecrets } from './redact';
import type { RequestState, TransportContext } from './request-state';

/**
 * A response that reached the wrong provider or names another model is a configuration failure,
 * whatever its text: the request did not measure the model under the registered settings. The
 * provider check comes first (it is the one the allowlist exists for).
 */
function configurationFailure(args: {
  readonly answered: boolean;
  readonly providerOutsideAllowlist: boolean;
  readonly returnedProvider: string | null;
  readonly providers: readonly string[];
  readonly requestedModel: string;
  readonly returnedModel: string | null;
}): { readonly failure: FailureClass; readonly detail: string | null } | null {
  if (!args.answered) return null;
  if (args.providerOutsideAllowlist)
    return {
      failure: 'provider_not_allowed',
      detail: `provider ${args.returnedProvider} is outside the allowlist [${args.providers.join(', ')}]`,
    };
  if (args.returnedModel !== null && args.returnedModel !== args.requestedModel)
    // The completion reading already notes the returned and requested model in the detail.
    return { failure: 'model_mismatch', detail: null };
  return null;
}

/** The failure class and the detail of a finished request: configuration, end, or last try. */
function requestFailure(
  context: TransportContext,
  state: RequestState,
  returnedProvider: string | null,
): { readonly failure: FailureClass; readonly failureDetail: string | null } {
  const { last, endFailure } = state;
  const reading = last?.reading ?? null;
  const configuration = configurationFailure({
    answered: reading !== null && endFailure === null,
    providerOutsideAllowlist:
      context.mode.checksProviderAllowlist &&
      returnedProvider !== null &&
      context.endpoints.length > 0 &&
      !context.providers.some((slug) => matchesProviderSlug(slug, returnedProvider)),
    returnedProvider,
    providers: context.providers,
    requestedModel: context.model,
    returnedModel: reading?.returnedModel ?? null,
  });
  const failure = configuration?.failure ?? endFailure?.failure ?? last?.failure ?? 'timeout';
  const headline = endFailure?.detail ?? last?.detail ?? null;
  const detailParts = [
    configuration?.detail ?? null,
    headline,
    ...(reading?.notes ?? []),
    ...state.notes,
  ].filter((part) => part !== null);
  const failureDetail =
    detailParts.length === 0 ? null : scrubSecrets(detailParts.join('; '), context.secrets);
  return { failure, failureDetail };
}

/** The `ChatResult` of a finished request, every string a server sent scrubbed of secrets. */
export function chatResultOf(
  context: TransportContext,
  state: RequestState,
  timing: { readonly startedAt: string; readonly startedMs: number },
): ChatResult {
  const last = state.last;
  const reading = last?.reading ?? null;
  const providerName = reading?.providerName ?? null;
  const returnedProvider =
    providerName === null ? null : providerSlugFor(providerName, context.endpoints);
  const { failure, failureDetail } = requestFailure(context, state, returnedProvider);
  // Every string a server sent passes the secret scrubber: a key echoed back never leaks.
  const scrub = (value: string | null): string | null =>
    value === null ? null : scrubSecrets(value, context.secrets);
  return {
    requestId: state.requestId,
    evidenceClass: context.evidenceClass,
    text:
      failure === 'budget_refused' || failure === 'timeout' ? null : scrub(reading?.text ?? null),
    failure,
    failureDetail,
    finishReason: scrub(reading?.finishReason ?? null),
    truncated: reading?.truncated ?? false,
    requestedModel: context.model,
    returnedModel: scrub(reading?.returnedModel ?? null),
    returnedProvider: scrub(returnedProvider),
    generationId: scrub(last?.generationId ?? null),
    usage: reading?.usage ?? UNKNOWN_USAGE,
    startedAt: timing.startedAt,
    finishedAt: context.now().toISOString(),
    latencyMs: context.elapsedMs() - timing.startedMs,
    tries: state.tries,
    reservedUsd: state.reservedUsd,
    chargedUsd: state.chargedUsd,
    redactedResponse: last?.redactedResponse ?? null,
  };
}
