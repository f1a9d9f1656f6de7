import { MemoryTaxonomyCounter } from './memory-taxonomy';
import type { ProbeNotebooks, RunScores } from './run-scores';

/** The memory experiment's ID: the key of its scores in `RunScores.modules`. */
const MEMORY_EXPERIMENT = 'memory';

/** What memory's scores carry beyond observations and traces (`ExperimentScores.extras`). */
export interface MemoryExtras {
  /**
   * Notebook text per memory observation key `<system>|<blockId>|<condition>` (case examples):
   * null for the oracle control, `''` for the blank one. Read from the run folder when asked for,
   * so the scores never hold every notebook of the run.
   */
  readonly probeNotebooks: ProbeNotebooks;
  /**
   * The failure taxonomy of the memory traces, counted as they were produced (with a trace sink
   * the trace lists are empty, so the analysis reads this instead). Absent: count the lists.
   */
  readonly taxonomy?: MemoryTaxonomyCounter;
}

/** Notebooks of no observation (scores without memory's extras). */
const NO_NOTEBOOKS: ProbeNotebooks = { get: () => undefined };

/**
 * Memory's extras in the scores (`modules.get('memory').extras`): its probe notebooks (none when
 * the scores hold none) and its failure-taxonomy counter when scoring counted one.
 */
export function memoryExtrasOf(scores: RunScores): MemoryExtras {
  const extras = scores.modules.get(MEMORY_EXPERIMENT)?.extras ?? {};
  const notebooks = extras.probeNotebooks as ProbeNotebooks | undefined;
  const taxonomy = extras.taxonomy;
  return {
    probeNotebooks: typeof notebooks?.get === 'function' ? notebooks : NO_NOTEBOOKS,
    ...(taxonomy instanceof MemoryTaxonomyCounter ? { taxonomy } : {}),
  };
}
