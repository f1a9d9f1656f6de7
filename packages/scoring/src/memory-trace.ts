import {
  type AnswerKeyEntry,
  InvalidArgumentError,
  type MemoryProbeTrace,
  type MemoryRecord,
  type ParsedProbeReply,
} from '@chi/spec';
import type { ClassifiedAnswer, MemoryTraceReason, TracedRecord } from '@chi/spec/internal';
import { normalizeProbeSource, normalizeProbeValue } from './answer-normalization';
import { answersByProbeId, checkAnswerKey } from './memory-inputs';
import { probePasses } from './probe-verdict';
import {
  compareIsoTimes,
  indexRecords,
  type KeyPrecedence,
  precedenceFor,
  type RecordIndex,
} from './record-precedence';

function traced(record: MemoryRecord): TracedRecord {
  return {
    key: record.key,
    value: record.value,
    source: record.source,
    eventTime: record.eventTime,
    authority: record.authority,
  };
}

const STATUS_REASON = {
  invalid: 'invalid_answer',
  missing: 'missing_answer',
  duplicate: 'duplicate_answer',
} as const;

/** Where a wrong value came from, checked in this order: same key (eligible), same key (after the cutoff), another key, nowhere. */
function classifyWrongValue(
  value: string,
  entry: AnswerKeyEntry,
  view: KeyPrecedence,
  index: RecordIndex,
): { reason: MemoryTraceReason; matched: MemoryRecord | null } {
  const winner = view.winner;
  const sameKey = view.eligible.find((record) => record !== winner && record.value === value);
  if (sameKey !== undefined && winner !== null) {
    // A non-winning eligible record dated after the winner must have lower authority.
    const later = compareIsoTimes(sameKey.eventTime, winner.eventTime) > 0;
    return { reason: later ? 'authority_trap' : 'stale', matched: sameKey };
  }
  const afterCutoff = view.excludedByCutoff.find((record) => record.value === value);
  if (afterCutoff !== undefined) return { reason: 'as_of_error', matched: afterCutoff };
  const otherKey = (index.byValue.get(value) ?? []).find((record) => record.key !== entry.key);
  if (otherKey !== undefined) return { reason: 'neighbour', matched: otherKey };
  return { reason: 'invented', matched: null };
}

function reasonFor(
  entry: AnswerKeyEntry,
  answer: ClassifiedAnswer,
  view: KeyPrecedence,
  index: RecordIndex,
): { reason: MemoryTraceReason; matched: MemoryRecord | null } {
  if (answer.status === 'invalid' || answer.status === 'missing' || answer.status === 'duplicate') {
    return { reason: STATUS_REASON[answer.status], matched: null };
  }
  const unknownExpected = entry.stratum === 'f' || entry.expectedValue === null;
  if (answer.status === 'abstained') {
    return { reason: unknownExpected ? 'correct_abstention' : 'over_abstained', matched: null };
  }
  const value = normalizeProbeValue(answer.value ?? '');
  if (entry.stratum === 'f') {
    const recorded = index.byValue.get(value)?.[0];
    return recorded === undefined
      ? { reason: 'lure_invented_value', matched: null }
      : { reason: 'lure_recorded_value', matched: recorded };
  }
  if (value === entry.expectedValue) {
    if (
      entry.stratum === 's' &&
      normalizeProbeSource(answer.source ?? '') !== entry.expectedSource
    ) {
      return { reason: 'source_mismatch', matched: null };
    }
    return { reason: 'correct', matched: null };
  }
  return classifyWrongValue(value, entry, view, index);
}

/**
 * One trace per memory probe, in answer-key order: probe ID, stratum, key, cutoff, the eligible
 * records in precedence order (winner first), the records excluded by the cutoff, the expected
 * answer, the classified answer, the verdict and exactly one reason from the fixed taxonomy
 * (`MEMORY_TRACE_REASONS`; the reasons partition the probes, and the verdict always agrees with
 * `scoreMemoryProbes`).
 *
 * Precedence is computed here from `records` (highest authority, then later eventTime; as-of
 * keeps eventTime <= cutoff) and must agree with the answer key, otherwise an error names the
 * entry: a key that disagrees with its own records cannot be trusted to score. A caller that
 * traces several replies against one world passes `recordIndex` (`indexRecords(records)`, built
 * once) instead of having the records validated and indexed again on every call.
 *
 * A wrong value is attributed in a fixed order: an older eligible record of the same key
 * (`stale`) or a later lower-authority one (`authority_trap`); a record of the same key after the
 * cutoff (`as_of_error`); a record of another key (`neighbour`); otherwise `invented`.
 *
 * @example
 * ```ts
 * const traces = traceMemoryProbes(world.records, world.answerKey, parsed);
 * const taxonomy = countTraceReasons(traces);
 * taxonomy.byStratum.u.authority_trap; // how many update probes fell for a lower-authority record
 * ```
 */
export function traceMemoryProbes(
  records: readonly MemoryRecord[],
  answerKey: readonly AnswerKeyEntry[],
  parsed: ParsedProbeReply,
  recordIndex?: RecordIndex,
): MemoryProbeTrace[] {
  const key = checkAnswerKey(answerKey);
  const answers = answersByProbeId(key, parsed);
  const index = recordIndex ?? indexRecords(records);
  return key.map((entry, position) => {
    const view = precedenceFor(index, entry.key, entry.asOf);
    const field = `answerKey[${position}]`;
    if (entry.stratum === 'f' && (index.byKey.get(entry.key)?.length ?? 0) > 0) {
      throw new InvalidArgumentError(
        `${field}.key`,
        `lure key ${JSON.stringify(entry.key)} has records: a lure must never be recorded`,
      );
    }
    const winner = view.winner;
    if (
      (winner?.value ?? null) !== entry.expectedValue ||
      (winner?.source ?? null) !== entry.expectedSource
    ) {
      throw new InvalidArgumentError(
        field,
        `the records' winner for key ${JSON.stringify(entry.key)}${entry.asOf === null ? '' : ` as of ${entry.asOf}`} is ${
          winner === null
            ? 'none (unknown)'
            : `${winner.value} from ${JSON.stringify(winner.source)}`
        }, but the answer key expects ${
          entry.expectedValue === null
            ? 'unknown'
            : `${entry.expectedValue} from ${JSON.stringify(entry.expectedSource)}`
        }`,
      );
    }
    const answer = answers.get(entry.id) as ClassifiedAnswer;
    const { reason, matched } = reasonFor(entry, answer, view, index);
    const verdict = probePasses(entry, answer) ? 'pass' : 'fail';
    return {
      probeId: entry.id,
      stratum: entry.stratum,
      key: entry.key,
      asOf: entry.asOf,
      eligibleRecords: view.eligible.map(traced),
      winnerIndex: winner === null ? null : 0,
      excludedByCutoff: view.excludedByCutoff.map(traced),
      expectedValue: entry.expectedValue,
      expectedSource: entry.expectedSource,
      answer,
      verdict,
      reason,
      matchedRecord: matched === null ? null : traced(matched),
    };
  });
}
