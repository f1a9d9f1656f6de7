import {
  type FailureTaxonomy,
  InvalidArgumentError,
  type MemoryProbeTrace,
  STRATA,
  type Stratum,
} from '@chi/spec';
import { MEMORY_TRACE_REASONS, type MemoryTraceReason } from '@chi/spec/internal';
import { isList } from './guards';

function zeroCounts(): Record<MemoryTraceReason, number> {
  return Object.fromEntries(MEMORY_TRACE_REASONS.map((reason) => [reason, 0])) as Record<
    MemoryTraceReason,
    number
  >;
}

/**
 * Counts every reason of the memory taxonomy per stratum and in total, zero-filled, so a report
 * can show where quality is lost. Call it once per system and load (over all worlds' traces of
 * that cell); each probe counts exactly once.
 *
 * @example
 * ```ts
 * const taxonomy = failureTaxonomy(traces);
 * taxonomy.total.correct + taxonomy.total.stale + ...; // === taxonomy.probes
 * ```
 */
export function failureTaxonomy(traces: readonly MemoryProbeTrace[]): FailureTaxonomy {
  if (!isList(traces))
    throw new InvalidArgumentError('traces', 'expected an array of memory probe traces');
  const byStratum = Object.fromEntries(STRATA.map((stratum) => [stratum, zeroCounts()])) as Record<
    Stratum,
    Record<MemoryTraceReason, number>
  >;
  const total = zeroCounts();
  traces.forEach((trace, index) => {
    const counts = byStratum[trace.stratum];
    if (
      counts === undefined ||
      !(MEMORY_TRACE_REASONS as readonly string[]).includes(trace.reason)
    ) {
      throw new InvalidArgumentError(
        `traces[${index}]`,
        `unknown stratum ${JSON.stringify(trace.stratum)} or reason ${JSON.stringify(trace.reason)}`,
      );
    }
    counts[trace.reason]++;
    total[trace.reason]++;
  });
  return { probes: traces.length, byStratum, total };
}
