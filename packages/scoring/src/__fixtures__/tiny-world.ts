import type { AnswerKeyEntry, MemoryRecord, ParsedProbeReply } from '@chi/spec';
import type { ClassifiedAnswer } from '@chi/spec/internal';

// A hand-built memory world small enough to check every expectation by eye. Fixture data, not a
// measurement. Times: T1 < T2 < T3 < T4 < T5.
export const T1 = '2026-01-01T00:00:00.000Z';
export const T2 = '2026-02-01T00:00:00.000Z';
export const T3 = '2026-03-01T00:00:00.000Z';
export const T4 = '2026-04-01T00:00:00.000Z';
export const T5 = '2026-05-01T00:00:00.000Z';

const record = (key: string, value: string, source: string, eventTime: string, authority: 1 | 2): MemoryRecord => ({
  key,
  value,
  source,
  eventTime,
  authority,
});

export const RECORDS: readonly MemoryRecord[] = [
  // k-alpha: one record.
  record('k-alpha', 'aaaa0001', 'ledger-a', T1, 1),
  // k-beta: an authoritative update (authority 2, later) replaces the first record.
  record('k-beta', 'bbbb0001', 'ledger-b', T1, 1),
  record('k-beta', 'bbbb0002', 'registry-b', T3, 2),
  // k-gamma: a later lower-authority conflict must not beat the authority-2 record.
  record('k-gamma', 'cccc0002', 'registry-c', T2, 2),
  record('k-gamma', 'cccc0001', 'memo-c', T4, 1),
  // k-delta: same authority, the later record wins now; as of T3 only the first is eligible.
  record('k-delta', 'dddd0001', 'ledger-d', T1, 1),
  record('k-delta', 'dddd0002', 'ledger-d2', T5, 1),
  // k-eps: recorded only at T5, so unknown as of T2.
  record('k-eps', 'eeee0001', 'ledger-e', T5, 1),
  // k-alphb: a confusable neighbour of k-alpha.
  record('k-alphb', 'abab0001', 'ledger-ab', T1, 1),
];

const entry = (
  id: string,
  stratum: AnswerKeyEntry['stratum'],
  key: string,
  asOf: string | null,
  expectedValue: string | null,
  expectedSource: string | null,
): AnswerKeyEntry => ({ id, stratum, key, asOf, expectedValue, expectedSource });

/** Two probes per stratum. */
export const ANSWER_KEY: readonly AnswerKeyEntry[] = [
  entry('r1', 'r', 'k-alpha', null, 'aaaa0001', 'ledger-a'),
  entry('r2', 'r', 'k-gamma', null, 'cccc0002', 'registry-c'),
  entry('t1', 't', 'k-delta', T3, 'dddd0001', 'ledger-d'),
  entry('t2', 't', 'k-eps', T2, null, null),
  entry('s1', 's', 'k-alpha', null, 'aaaa0001', 'ledger-a'),
  entry('s2', 's', 'k-beta', null, 'bbbb0002', 'registry-b'),
  entry('u1', 'u', 'k-beta', null, 'bbbb0002', 'registry-b'),
  entry('u2', 'u', 'k-delta', null, 'dddd0002', 'ledger-d2'),
  entry('i1', 'i', 'k-gamma', null, 'cccc0002', 'registry-c'),
  entry('i2', 'i', 'k-alphb', null, 'abab0001', 'ledger-ab'),
  entry('f1', 'f', 'k-zeta', null, null, null),
  entry('f2', 'f', 'k-eta', null, null, null),
];

export const PROBE_IDS: readonly string[] = ANSWER_KEY.map((e) => e.id);

export const answered = (id: string, value: string, source: string): ClassifiedAnswer => ({
  id,
  status: 'answered',
  value,
  source,
  detail: null,
});
export const abstained = (id: string): ClassifiedAnswer => ({ id, status: 'abstained', value: null, source: null, detail: null });
export const failed = (id: string, status: 'invalid' | 'missing' | 'duplicate'): ClassifiedAnswer => ({
  id,
  status,
  value: null,
  source: null,
  detail: status,
});

export const parsedOf = (answers: readonly ClassifiedAnswer[]): ParsedProbeReply => ({
  answers: [...answers],
  foundAnswerSet: true,
  unrequestedCount: 0,
  notes: [],
});

/**
 * The hand-worked reply: r 2/2, t 1/2, s 1/2, u 1/2, i 1/2, f 1/2 (one invented affirmative).
 * Q_M = 1^(1/6) * 0.5^(5/6).
 */
export const HAND_WORKED_ANSWERS: readonly ClassifiedAnswer[] = [
  answered('r1', 'aaaa0001', 'ledger-a'),
  answered('r2', 'cccc0002', 'whatever'), // content stratum: the source is not scored
  answered('t1', 'dddd0002', 'ledger-d2'), // the current value on a historical question
  abstained('t2'), // nothing eligible as of T2: abstention is right
  answered('s1', 'aaaa0001', ' ledger-a '), // sources are trimmed
  answered('s2', 'bbbb0002', 'ledger-b'), // right value, wrong source
  answered('u1', 'bbbb0001', 'ledger-b'), // stale
  answered('u2', ' DDDD0002 ', 'ledger-d2'), // values are trimmed and lowercased
  answered('i1', 'cccc0002', 'registry-c'),
  answered('i2', 'aaaa0001', 'ledger-a'), // neighbour's value
  answered('f1', 'ffff0001', 'nowhere'), // invented affirmative on a lure
  abstained('f2'),
];
