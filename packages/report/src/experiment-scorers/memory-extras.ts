import {
  isMemoryObservation,
  isMemoryTraceLine,
  type MemoryExtras,
  type ObservationBase,
  type TraceLineBase,
} from '@chi/analysis';
import { MemoryTaxonomyCounter } from '@chi/analysis/internal';
import type { RunRecords } from '../run-folder/run-folder';
import type { ScoresExtension, ScoresExtensionRun } from '../scoring/score-extras';
import { probeNotebooksOf } from './probe-notebooks';

/** Memory's extras for one scoring: the failure taxonomy counted as traces pass, then notebooks. */
class MemoryExtrasRun implements ScoresExtensionRun {
  readonly #taxonomy = new MemoryTaxonomyCounter();
  readonly #records: RunRecords;

  constructor(records: RunRecords) {
    this.#records = records;
  }

  trace(line: TraceLineBase): void {
    if (isMemoryTraceLine(line)) this.#taxonomy.add(line);
  }

  finish(observations: () => readonly ObservationBase[]): Readonly<Record<string, unknown>> {
    const memory = observations().filter(isMemoryObservation);
    const extras: MemoryExtras = {
      probeNotebooks: probeNotebooksOf(this.#records, memory),
      taxonomy: this.#taxonomy,
    };
    return { ...extras };
  }
}

/**
 * What memory's scores carry beyond observations and traces (`MemoryExtras` of `@chi/analysis`,
 * read with `memoryExtrasOf`): the failure taxonomy of its traces, counted as they are produced
 * (with a trace sink the trace lists are empty), and the notebook each observation was answered
 * from, read from the run only when asked for (case examples).
 */
export const memoryScoresExtension: ScoresExtension = {
  experimentId: 'memory',
  start: (records) => new MemoryExtrasRun(records),
};
