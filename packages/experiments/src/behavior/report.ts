import type { ExperimentReportText } from '../report-text';

/** The behavior experiment's report section (its tables and figures are built by the report). */
export const behaviorReportText: ExperimentReportText = {
  title: 'Behavioral probes',
  anchor: 'behavior',
  intro:
    '24 registered items per world in two fresh-context halves: R eight rule/counterfactual tasks, C four next-action choices, A four matched positive/negative frame pairs, I four integration decisions. Task indicators, not validated axis scores.',
  absent: 'The run has no behavioral experiment.',
};
