import { z } from 'zod';
import { CountSchema, IsoTimeSchema, UsdSchema } from './primitives';

/** Why the ledger stopped accepting reservations. */
export const StopReasonSchema = z.strictObject({
  kind: z.enum(['ceiling', 'overcharge', 'manual']),
  message: z.string(),
  at: IsoTimeSchema,
});
/** Why the ledger stopped accepting reservations. */
export type StopReason = z.infer<typeof StopReasonSchema>;

/** One append-only ledger line. The state is the fold of these entries. */
export const LedgerEntrySchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('open'),
    seq: CountSchema,
    at: IsoTimeSchema,
    ceilingUsd: UsdSchema,
  }),
  z.strictObject({
    kind: z.literal('reserve'),
    seq: CountSchema,
    at: IsoTimeSchema,
    reservationId: z.string().min(1),
    attemptId: z.string().min(1),
    amountUsd: UsdSchema,
  }),
  z.strictObject({
    kind: z.literal('settle'),
    seq: CountSchema,
    at: IsoTimeSchema,
    reservationId: z.string().min(1),
    chargedUsd: UsdSchema,
    /** Where the charge figure came from, e.g. `usage.cost`, `generation.total_cost`, `not_sent`. */
    source: z.string().min(1),
  }),
  z.strictObject({
    kind: z.literal('retain'),
    seq: CountSchema,
    at: IsoTimeSchema,
    reservationId: z.string().min(1),
    reason: z.string().min(1),
  }),
  z.strictObject({
    kind: z.literal('stop'),
    seq: CountSchema,
    at: IsoTimeSchema,
    reason: StopReasonSchema,
  }),
]);
/** One append-only ledger line. */
export type LedgerEntry = z.infer<typeof LedgerEntrySchema>;

/** A snapshot of the ledger. committed = settled + retained + open reservations. */
export const LedgerStateSchema = z.strictObject({
  ceilingUsd: UsdSchema,
  settledUsd: UsdSchema,
  retainedUsd: UsdSchema,
  openReservedUsd: UsdSchema,
  committedUsd: UsdSchema,
  remainingUsd: z.number(),
  openReservations: CountSchema,
  stopped: StopReasonSchema.nullable(),
});
/** A snapshot of the ledger. */
export type LedgerState = z.infer<typeof LedgerStateSchema>;

/** The outcome of a reservation request. */
export type ReserveOutcome =
  | { readonly ok: true; readonly reservationId: string; readonly amountUsd: number }
  | { readonly ok: false; readonly reason: string; readonly state: LedgerState };

/** The outcome of settling a reservation with its actual charge. */
export interface SettleOutcome {
  readonly chargedUsd: number;
  /** True when the charge exceeded the reservation: the ledger has stopped new requests. */
  readonly overcharged: boolean;
}

/**
 * A USD budget shared by every request of a run. The transport reserves an upper bound before
 * each attempt and settles the actual charge afterwards. Implementations must make `reserve`
 * atomic: with any concurrency, settled + retained + open reservations never exceed the ceiling.
 */
export interface BudgetLedger {
  readonly specificationVersion: 'chi-ledger-v1';
  /** Reserve `amountUsd` for one attempt; refused when it would cross the ceiling or after a stop. */
  reserve(args: { attemptId: string; amountUsd: number }): Promise<ReserveOutcome>;
  /** Record the actual charge. A charge above the reservation is kept as is and stops the ledger. */
  settle(
    reservationId: string,
    args: { chargedUsd: number; source: string },
  ): Promise<SettleOutcome>;
  /** Keep the whole reservation as spent (timeout, aborted or otherwise uncertain outcome). */
  retain(reservationId: string, reason: string): Promise<void>;
  /** Stop new reservations (e.g. on operator request). */
  stop(reason: { kind: 'manual' | 'overcharge' | 'ceiling'; message: string }): Promise<void>;
  /** A snapshot of the totals and whether the ledger has stopped. */
  state(): Promise<LedgerState>;
}
