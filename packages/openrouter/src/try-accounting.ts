import type { ChatMessage } from '@chi/spec';
import type { KyInstance } from 'ky';
import type { ResolvedModelSettings } from './model-settings';
import { requestInputBytes, reservationUsd } from './reservation';
import type { TryOutcome } from './try-outcome';

/** What reserving and settling a try needs from its transport. */
export type AccountingContext = Pick<
  ResolvedModelSettings,
  'ledger' | 'price' | 'marginRatio' | 'lookup' | 'sleep'
> & {
  /** The transport's HTTP client (generation lookups). */
  readonly http: KyInstance;
};

/** The USD reserved before each try of a request (0 without a ledger or a price). */
export function reservationFor(
  context: Pick<AccountingContext, 'ledger' | 'price' | 'marginRatio'>,
  messages: readonly ChatMessage[],
  cap: number,
): number {
  if (context.ledger === undefined || context.price === null) return 0;
  return reservationUsd({
    inputBytes: requestInputBytes(messages),
    maxOutputTokens: cap,
    safetyPrice: context.price,
    marginRatio: context.marginRatio,
  });
}

/** The charge of a generation from `GET /generation?id=`, or null when it cannot be known. */
export async function lookupGenerationCost(
  context: Pick<AccountingContext, 'lookup' | 'sleep' | 'http'>,
  generationId: string,
  signal: AbortSignal | undefined,
): Promise<number | null> {
  const lookup = context.lookup;
  if (lookup === false) return null;
  for (let attempt = 0; attempt < lookup.attempts; attempt++) {
    if (attempt > 0) {
      try {
        await context.sleep(lookup.intervalMs, signal);
      } catch {
        return null;
      }
    }
    const deadline = AbortSignal.timeout(10_000);
    try {
      const response = await context.http.get('generation', {
        searchParams: { id: generationId },
        signal: signal === undefined ? deadline : AbortSignal.any([deadline, signal]),
      });
      const text = await response.text();
      // The generation can answer 404 for about a second after the request finishes.
      if (response.status === 404) continue;
      if (!response.ok) return null;
      const cost = (JSON.parse(text) as { data?: { total_cost?: unknown } } | null)?.data
        ?.total_cost;
      return typeof cost === 'number' && Number.isFinite(cost) && cost >= 0 ? cost : null;
    } catch {
      return null;
    }
  }
  return null;
}

/** Settles or retains one try's reservation; returns the USD recorded and a note for an overcharge. */
export async function settleTry(
  context: AccountingContext,
  outcome: TryOutcome,
  reservationId: string | null,
  reservedUsd: number,
  signal: AbortSignal | undefined,
): Promise<{ chargedUsd: number; note: string | null }> {
  let billing = outcome.billing;
  if (
    billing.kind === 'uncertain' &&
    billing.generationId !== null &&
    outcome.failure !== 'timeout'
  ) {
    const cost = await lookupGenerationCost(context, billing.generationId, signal);
    if (cost !== null)
      billing = { kind: 'settle', chargedUsd: cost, source: 'generation.total_cost' };
  }
  const ledger = context.ledger;
  if (ledger === undefined || reservationId === null) {
    return { chargedUsd: billing.kind === 'settle' ? billing.chargedUsd : 0, note: null };
  }
  if (billing.kind === 'uncertain') {
    await ledger.retain(reservationId, billing.reason);
    return { chargedUsd: reservedUsd, note: null };
  }
  const settled = await ledger.settle(reservationId, {
    chargedUsd: billing.chargedUsd,
    source: billing.source,
  });
  const note = settled.overcharged
    ? `charged ${billing.chargedUsd} USD (${billing.source}), above the reservation of ${reservedUsd} USD: the ledger stopped new requests`
    : null;
  return { chargedUsd: billing.chargedUsd, note };
}
