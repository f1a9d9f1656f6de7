import { InvalidArgumentError, type ReserveOutcome } from '@chi/spec';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { foldLedger } from '../src/ledger-book';
import type { InspectableLedger, LedgerOptions } from '../src/ledger-core';

/** Makes a fresh, empty ledger with the given ceiling (and closes it later when it can). */
export type LedgerFactory = (
  options: LedgerOptions & { readonly ceilingUsd: number },
) => Promise<InspectableLedger>;

const AT = new Date('2026-09-01T10:00:00.000Z');
const now = () => AT;

/**
 * The `BudgetLedger` contract every implementation passes (unstorage's `testDriver` pattern):
 * exact accounting, refusal at the ceiling, overcharge stop, strict reservation life cycle, atomic
 * reservations under concurrency, and entries whose fold is the state.
 */
export function ledgerContract(name: string, makeLedger: LedgerFactory): void {
  describe(`${name} meets the BudgetLedger contract`, () => {
    const opened: InspectableLedger[] = [];
    async function make(
      options: LedgerOptions & { ceilingUsd: number },
    ): Promise<InspectableLedger> {
      const ledger = await makeLedger({ now, ...options });
      opened.push(ledger);
      return ledger;
    }
    afterEach(async () => {
      for (const ledger of opened.splice(0))
        await (ledger as { close?: () => Promise<void> }).close?.();
    });

    it('starts empty with its ceiling', async () => {
      const ledger = await make({ ceilingUsd: 2.5 });
      expect(ledger.specificationVersion).toBe('chi-ledger-v1');
      expect(await ledger.state()).toEqual({
        ceilingUsd: 2.5,
        settledUsd: 0,
        retainedUsd: 0,
        openReservedUsd: 0,
        committedUsd: 0,
        remainingUsd: 2.5,
        openReservations: 0,
        stopped: null,
      });
      expect(await ledger.entries()).toEqual([
        { kind: 'open', seq: 0, at: AT.toISOString(), ceilingUsd: 2.5 },
      ]);
    });

    it('reserves, settles and retains with exact sums', async () => {
      const ledger = await make({ ceilingUsd: 1 });
      const a = await ledger.reserve({ attemptId: 'a#0', amountUsd: 0.3 });
      const b = await ledger.reserve({ attemptId: 'b#0', amountUsd: 0.2 });
      expect(a).toEqual({ ok: true, reservationId: 'res-1', amountUsd: 0.3 });
      expect(b).toEqual({ ok: true, reservationId: 'res-2', amountUsd: 0.2 });
      expect(await ledger.state()).toMatchObject({
        openReservedUsd: 0.5,
        committedUsd: 0.5,
        remainingUsd: 0.5,
        openReservations: 2,
      });
      expect(await ledger.settle('res-1', { chargedUsd: 0.1, source: 'usage.cost' })).toEqual({
        chargedUsd: 0.1,
        overcharged: false,
      });
      await ledger.retain('res-2', 'timeout');
      // 0.1 + 0.2 is 0.30000000000000004 in floating point; the ledger counts nano-dollars.
      expect(await ledger.state()).toEqual({
        ceilingUsd: 1,
        settledUsd: 0.1,
        retainedUsd: 0.2,
        openReservedUsd: 0,
        committedUsd: 0.3,
        remainingUsd: 0.7,
        openReservations: 0,
        stopped: null,
      });
    });

    it('accepts a reservation exactly to the ceiling, then refuses and stops', async () => {
      const ledger = await make({ ceilingUsd: 0.5 });
      expect((await ledger.reserve({ attemptId: 'a', amountUsd: 0.5 })).ok).toBe(true);
      const refused = await ledger.reserve({ attemptId: 'b', amountUsd: 1e-9 });
      expect(refused).toMatchObject({
        ok: false,
        reason:
          'reserving 0.000000001 USD for attempt b would bring the committed total from 0.5 USD to 0.500000001 USD, above the ceiling of 0.5 USD',
      });
      const state = await ledger.state();
      expect(state.stopped).toMatchObject({ kind: 'ceiling' });
      expect(state.committedUsd).toBe(0.5);
      await ledger.settle('res-1', { chargedUsd: 0, source: 'not_billed:http_429' });
      // Stopped: even a reservation that now fits is refused.
      expect(await ledger.reserve({ attemptId: 'c', amountUsd: 0.1 })).toMatchObject({
        ok: false,
        reason: expect.stringMatching(/^the ledger has stopped new requests \(ceiling\)/),
      });
    });

    it('without stopAtCeiling, refuses only what does not fit', async () => {
      const ledger = await make({ ceilingUsd: 0.5, stopAtCeiling: false });
      expect((await ledger.reserve({ attemptId: 'a', amountUsd: 0.4 })).ok).toBe(true);
      expect((await ledger.reserve({ attemptId: 'b', amountUsd: 0.2 })).ok).toBe(false);
      expect((await ledger.reserve({ attemptId: 'c', amountUsd: 0.1 })).ok).toBe(true);
      expect((await ledger.state()).stopped).toBeNull();
    });

    it('records a charge above its reservation at its amount and stops new reservations', async () => {
      const ledger = await make({ ceilingUsd: 1 });
      await ledger.reserve({ attemptId: 'a', amountUsd: 0.1 });
      expect(await ledger.settle('res-1', { chargedUsd: 0.25, source: 'usage.cost' })).toEqual({
        chargedUsd: 0.25,
        overcharged: true,
      });
      const state = await ledger.state();
      expect(state).toMatchObject({ settledUsd: 0.25, committedUsd: 0.25 });
      expect(state.stopped).toEqual({
        kind: 'overcharge',
        message:
          'reservation res-1 was charged 0.25 USD (usage.cost), above its reservation of 0.1 USD',
        at: AT.toISOString(),
      });
      expect((await ledger.reserve({ attemptId: 'b', amountUsd: 0.01 })).ok).toBe(false);
    });

    it('keeps the first stop reason', async () => {
      const ledger = await make({ ceilingUsd: 1 });
      await ledger.stop({ kind: 'manual', message: 'operator' });
      await ledger.stop({ kind: 'ceiling', message: 'later' });
      expect((await ledger.state()).stopped).toEqual({
        kind: 'manual',
        message: 'operator',
        at: AT.toISOString(),
      });
      expect((await ledger.entries()).filter((entry) => entry.kind === 'stop')).toHaveLength(1);
      expect(await ledger.reserve({ attemptId: 'a', amountUsd: 0 })).toMatchObject({
        ok: false,
        reason: 'the ledger has stopped new requests (manual): operator',
      });
    });

    it('closes a reservation exactly once', async () => {
      const ledger = await make({ ceilingUsd: 1 });
      await ledger.reserve({ attemptId: 'a', amountUsd: 0.1 });
      await ledger.settle('res-1', { chargedUsd: 0.05, source: 'usage.cost' });
      await expect(
        ledger.settle('res-1', { chargedUsd: 0.05, source: 'usage.cost' }),
      ).rejects.toThrow(
        'reservationId: res-1 is not an open reservation (unknown, or already settled or retained)',
      );
      await expect(ledger.retain('res-1', 'again')).rejects.toThrow(InvalidArgumentError);
      await expect(ledger.retain('res-9', 'unknown')).rejects.toThrow(InvalidArgumentError);
      expect((await ledger.state()).settledUsd).toBe(0.05);
    });

    it('rejects bad arguments, naming the field', async () => {
      const ledger = await make({ ceilingUsd: 1 });
      await expect(ledger.reserve({ attemptId: 'a', amountUsd: -1 })).rejects.toThrow(
        'amountUsd: expected a finite USD amount >= 0, found -1',
      );
      await expect(ledger.reserve({ attemptId: 'a', amountUsd: Number.NaN })).rejects.toThrow(
        'amountUsd',
      );
      await expect(ledger.reserve({ attemptId: '', amountUsd: 0.1 })).rejects.toThrow(
        'attemptId: expected a non-empty string',
      );
      await ledger.reserve({ attemptId: 'a', amountUsd: 0.1 });
      await expect(
        ledger.settle('res-1', { chargedUsd: Number.POSITIVE_INFINITY, source: 'x' }),
      ).rejects.toThrow('chargedUsd');
      await expect(ledger.settle('res-1', { chargedUsd: 0, source: '' })).rejects.toThrow('source');
      await expect(ledger.stop({ kind: 'manual', message: '' })).rejects.toThrow('reason.message');
      expect(await ledger.entries()).toHaveLength(2);
    });

    it('reserves atomically under concurrency: the outcome equals one-at-a-time in call order (property)', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 1, maxLength: 40 }),
          fc.integer({ min: 0, max: 3000 }),
          fc.boolean(),
          async (amountsMilli, ceilingMilli, stopAtCeiling) => {
            const ledger = await make({ ceilingUsd: ceilingMilli / 1000, stopAtCeiling });
            // Fire every reservation at once; each settles right away at half its amount.
            const outcomes = await Promise.all(
              amountsMilli.map(async (milli, index): Promise<ReserveOutcome> => {
                const outcome = await ledger.reserve({
                  attemptId: `a${index}`,
                  amountUsd: milli / 1000,
                });
                if (outcome.ok && index % 3 === 0)
                  await ledger.settle(outcome.reservationId, {
                    chargedUsd: milli / 2000,
                    source: 'test',
                  });
                return outcome;
              }),
            );
            // Sequential model of the same calls, in nano-dollars.
            let committed = 0;
            let stopped = false;
            const expected = amountsMilli.map((milli) => {
              const nanos = milli * 1_000_000;
              if (stopped || committed + nanos > ceilingMilli * 1_000_000) {
                if (stopAtCeiling) stopped = true;
                return false;
              }
              committed += nanos;
              return true;
            });
            expect(outcomes.map((outcome) => outcome.ok)).toEqual(expected);
            const state = await ledger.state();
            expect(state.committedUsd).toBeLessThanOrEqual(state.ceilingUsd);
            expect(foldLedger(await ledger.entries())).toEqual(state);
            await (ledger as { close?: () => Promise<void> }).close?.();
          },
        ),
        { numRuns: 25 },
      );
    });

    it('numbers entries without gaps and folds them back into its state', async () => {
      const ledger = await make({ ceilingUsd: 1 });
      await ledger.reserve({ attemptId: 'a', amountUsd: 0.2 });
      await ledger.reserve({ attemptId: 'b', amountUsd: 0.3 });
      await ledger.retain('res-2', 'timeout');
      await ledger.settle('res-1', { chargedUsd: 0.05, source: 'usage.cost' });
      const entries = await ledger.entries();
      expect(entries.map((entry) => entry.seq)).toEqual([0, 1, 2, 3, 4]);
      expect(entries.map((entry) => entry.kind)).toEqual([
        'open',
        'reserve',
        'reserve',
        'retain',
        'settle',
      ]);
      expect(foldLedger(entries)).toEqual(await ledger.state());
    });
  });
}
