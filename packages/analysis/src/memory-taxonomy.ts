import { STRATA } from '@chi/spec';
import type { TaxonomyCount } from './chart-data';
import { compareUtf8 } from './compare-utf8';
import type { MemoryTraceLine } from './run-scores';

const CONDITION_RANK = { notebook: 0, blank: 1, oracle: 2, replay: 3 } as const;

/**
 * Failure-taxonomy counts of the complete blocks' memory traces, folded one trace at a time:
 * scoring feeds it as traces are produced, so the analysis needs no run's worth of traces.
 */
export class MemoryTaxonomyCounter {
  readonly #counts = new Map<string, TaxonomyCount>();

  /** Counts one trace line (incomplete blocks are not counted). */
  add(line: MemoryTraceLine): void {
    if (!line.blockComplete) return;
    const { trace } = line;
    const key = `${line.systemId}|${line.condition}|${line.load}|${trace.stratum}|${trace.reason}`;
    const prior = this.#counts.get(key);
    this.#counts.set(
      key,
      prior === undefined
        ? {
            systemId: line.systemId,
            condition: line.condition,
            load: line.load,
            stratum: trace.stratum,
            reason: trace.reason,
            pass: trace.verdict === 'pass',
            count: 1,
          }
        : { ...prior, count: prior.count + 1 },
    );
  }

  /** The counts by system (in `systems` order), condition, load, stratum and reason. */
  rows(systems: readonly string[]): TaxonomyCount[] {
    return [...this.#counts.values()].sort(
      (a, b) =>
        systems.indexOf(a.systemId) - systems.indexOf(b.systemId) ||
        CONDITION_RANK[a.condition] - CONDITION_RANK[b.condition] ||
        a.load - b.load ||
        STRATA.indexOf(a.stratum) - STRATA.indexOf(b.stratum) ||
        compareUtf8(a.reason, b.reason),
    );
  }
}

/** The taxonomy of a list of memory trace lines (what {@link MemoryTaxonomyCounter} folds). */
export function memoryTaxonomy(
  lines: Iterable<MemoryTraceLine>,
  systems: readonly string[],
): TaxonomyCount[] {
  const counter = new MemoryTaxonomyCounter();
  for (const line of lines) counter.add(line);
  return counter.rows(systems);
}
