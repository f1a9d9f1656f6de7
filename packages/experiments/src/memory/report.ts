import type { ExperimentReportText } from '../report-text';

/** The memory experiment's report section (its tables and figures are built by the report). */
export const memoryReportText: ExperimentReportText = {
  title: 'Memory capacity',
  anchor: 'memory',
  intro: null,
  absent: 'The run has no memory experiment.',
};

/** The memory experiment's second section: where the probes failed. */
export const memoryTaxonomyReportText: ExperimentReportText = {
  title: 'Where capacity is lost: failure taxonomy',
  anchor: 'taxonomy',
  intro: null,
  absent: 'The run has no memory experiment.',
};
