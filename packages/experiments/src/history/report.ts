import type { ExperimentReportText } from '../report-text';

/** The history experiment's report section (its tables and figures are built by the report). */
export const historyReportText: ExperimentReportText = {
  title: 'History experiment',
  anchor: 'history',
  intro:
    'Four binary environments per world. Histories A and B carry opposite evidence; A2 repeats A (same-history stochastic control). Checkpoint 0: no evidence (unknown warranted); 1: ingest; 2 and 3: neutral maintenance invocations; 4: authoritative correction. Checkpoints count invocations, not days.',
  absent: 'The run has no history experiment.',
};
