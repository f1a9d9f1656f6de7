/**
 * What an experiment's report section says about itself, as plain data kept in its folder: its
 * heading and anchor, what it says first, and what it says when the run has none of its data.
 * The report (`@chi/report`) builds the section's tables and figures around it.
 */
export interface ExperimentReportText {
  /** The section's heading. */
  readonly title: string;
  /** The heading's anchor in the report (and its contents entry). */
  readonly anchor: string;
  /** The paragraph under the heading, or null for none. */
  readonly intro: string | null;
  /** What the section says when the run has none of the experiment's data. */
  readonly absent: string;
}
