import type { RequestOutcome } from '@chi/run';
import { blockRequestState } from '@chi/run/internal';
import type { ChatResult } from '@chi/spec';
import { isInfrastructureFailure } from '@chi/spec/internal';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OutcomeTable } from './run-outcomes';

const FAILURES = [
  'none',
  'timeout',
  'truncated',
  'http_fatal',
  'http_retryable',
  'provider_not_allowed',
];

/** A result with what the session reads of one: failure, last try's HTTP status, money. */
const resultArbitrary = fc
  .record({
    failure: fc.constantFrom(...FAILURES),
    statuses: fc.array(fc.constantFrom(200, 401, 402, 403, 404, 429, 500), { maxLength: 2 }),
    chargedUsd: fc.double({ min: 0, max: 5, noNaN: true }),
  })
  .map(
    ({ failure, statuses, chargedUsd }) =>
      ({
        failure,
        tries: statuses.map((status) => ({ status })),
        chargedUsd,
      }) as unknown as ChatResult,
  );

const outcomeArbitrary: fc.Arbitrary<{ outcome: RequestOutcome; by: number }> = fc.oneof(
  resultArbitrary.map((result) => ({ outcome: { kind: 'resolved' as const, result }, by: -1 })),
  fc
    .constantFrom('possibly sent', 'another reason')
    .map((reason) => ({ outcome: { kind: 'abandoned' as const, reason }, by: -1 })),
  fc.nat(9).map((by) => ({ outcome: { kind: 'blocked' as const, by: `r${by}` }, by })),
  fc
    .constantFrom('run unfinished', 'ceiling stop')
    .map((reason) => ({ outcome: { kind: 'not_sent' as const, reason }, by: -1 })),
  fc.constant({ outcome: { kind: 'pending' } as RequestOutcome, by: -1 }),
);

describe('OutcomeTable (property)', () => {
  it('answers every question exactly as the map of whole outcomes it replaces', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(9), outcomeArbitrary), { maxLength: 30 }), (sets) => {
        const table = new OutcomeTable(10);
        const whole = new Map<number, RequestOutcome>();
        for (const [ordinal, { outcome, by }] of sets) {
          table.set(ordinal, outcome, by);
          whole.set(ordinal, outcome);
        }
        const values = [...whole.values()];
        const count = (kind: RequestOutcome['kind']) =>
          values.filter((outcome) => outcome.kind === kind).length;
        expect(table.counts()).toEqual({
          resolved: count('resolved'),
          failed: values.filter(
            (outcome) => outcome.kind === 'resolved' && outcome.result.failure !== 'none',
          ).length,
          abandoned: count('abandoned'),
          blocked: count('blocked'),
          notSent: count('not_sent'),
          pending: count('pending'),
        });
        for (let ordinal = 0; ordinal < 10; ordinal += 1) {
          const outcome = whole.get(ordinal);
          expect(table.has(ordinal)).toBe(outcome !== undefined);
          expect(table.kindOf(ordinal)).toBe(outcome?.kind);
          expect(table.failedForInfrastructure(ordinal)).toBe(
            outcome?.kind === 'resolved' && isInfrastructureFailure(outcome.result),
          );
          expect(table.chargedUsd(ordinal)).toBe(
            outcome?.kind === 'resolved' ? outcome.result.chargedUsd : 0,
          );
          expect(table.blockedByOf(ordinal)).toBe(
            outcome?.kind === 'blocked' ? Number(outcome.by.slice(1)) : -1,
          );
          expect(table.blockState(ordinal)).toEqual(blockRequestState(outcome));
        }
      }),
    );
  });
});
