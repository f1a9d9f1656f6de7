import type { RunChartData, RunScores, TraceLineBase } from '@chi/analysis';
import type { RunManifest } from '@chi/spec';
import type { CaseCandidate } from './case-examples';
import { type CsvCell, toCsv } from './csv';

/** What an experiment's release files are made from: the run's scores and its chart data. */
export interface ExperimentReleaseInput {
  readonly scores: RunScores;
  readonly data: RunChartData;
}

/**
 * The case examples an experiment offers (`report-cases.md`): a candidate from each of its trace
 * lines as the run is scored, and the notebook a chosen one was answered from, read only when the
 * examples are made.
 */
export interface ExperimentReleaseCases {
  /** The candidate of a trace line, or null when the line is none (e.g. an incomplete block's). */
  candidate(line: TraceLineBase): CaseCandidate | null;
  /** The notebook lookup for the chosen candidates (null: no notebook, e.g. the oracle control). */
  notebooks(scores: RunScores): (probe: CaseCandidate) => string | null;
}

/**
 * One experiment's fixed files of a release, registered under its experiment ID: an output
 * adapter the release core iterates (`BUILT_IN_RELEASE_OUTPUTS`), so the core names no
 * experiment and the pilot's published layout (`scores/memory.jsonl`,
 * `chart-data/per-world-memory.csv` and the rest) stays as it was.
 */
export interface ExperimentReleaseOutput {
  readonly experimentId: string;
  /** Its observation files, path -> the values written one canonical JSON line each. */
  scoreFiles(scores: RunScores): readonly (readonly [string, readonly unknown[]])[];
  /** Its other derived files (e.g. the per-world CSV), path -> exact text. */
  files(input: ExperimentReleaseInput): readonly (readonly [string, string])[];
  /** Its entries of `parameters/scoring.json`, from the manifest. */
  scoringParameters?(manifest: RunManifest): Readonly<Record<string, unknown>>;
  /** Whether the capacity and similarity profiles rest on it (their section needs one of these). */
  readonly profiles?: boolean;
  /** Its case examples, when it offers any. */
  readonly cases?: ExperimentReleaseCases;
}

/** Rows as CSV, the columns those of the first row (an empty table has no header). */
export function rowsCsv(rows: readonly Record<string, CsvCell>[]): string {
  return toCsv(Object.keys(rows[0] ?? {}), rows);
}

/** Which of the registered experiments a manifest includes, by experiment ID. */
export function experimentsIncluded(
  manifest: RunManifest,
  outputs: readonly ExperimentReleaseOutput[],
): Record<string, boolean> {
  const params: Readonly<Record<string, unknown>> = manifest.experiments;
  return Object.fromEntries(
    outputs.map((output) => [output.experimentId, params[output.experimentId] != null]),
  );
}
