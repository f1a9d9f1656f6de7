import { FailureTaxonomySchema, MEMORY_TRACE_REASONS } from '@chi/spec/internal';
import { describe, expect, it } from 'vitest';
import { ANSWER_KEY, HAND_WORKED_ANSWERS, parsedOf, RECORDS } from './__fixtures__/tiny-world';
import { failureTaxonomy } from './failure-taxonomy';
import { traceMemoryProbes } from './memory-trace';

describe('failureTaxonomy', () => {
  it('counts every reason per stratum and in total, zero-filled', () => {
    const taxonomy = failureTaxonomy(
      traceMemoryProbes(RECORDS, ANSWER_KEY, parsedOf(HAND_WORKED_ANSWERS)),
    );
    expect(FailureTaxonomySchema.safeParse(taxonomy).success).toBe(true);
    expect(taxonomy.probes).toBe(12);
    expect(taxonomy.byStratum.t).toMatchObject({
      as_of_error: 1,
      correct_abstention: 1,
      correct: 0,
    });
    expect(taxonomy.byStratum.f).toMatchObject({ lure_invented_value: 1, correct_abstention: 1 });
    expect(taxonomy.total).toEqual({
      correct: 5,
      correct_abstention: 2,
      over_abstained: 0,
      stale: 1,
      authority_trap: 0,
      as_of_error: 1,
      neighbour: 1,
      source_mismatch: 1,
      invented: 0,
      lure_recorded_value: 0,
      lure_invented_value: 1,
      invalid_answer: 0,
      missing_answer: 0,
      duplicate_answer: 0,
    });
    const sum = MEMORY_TRACE_REASONS.reduce((total, reason) => total + taxonomy.total[reason], 0);
    expect(sum).toBe(taxonomy.probes);
  });

  it('is all zeros for no traces', () => {
    const taxonomy = failureTaxonomy([]);
    expect(taxonomy.probes).toBe(0);
    expect(Object.values(taxonomy.byStratum.r).every((count) => count === 0)).toBe(true);
  });
});
