import { AXES, type ExperimentDescriptor, PANEL_SLOTS, panelCoverage } from '@chi/run';

/**
 * `chi templates`: the registered experiments by axis, with how many of the specification's 30
 * slots they implement and how many await the specification's texts. Partial task indicators are
 * listed beside an axis but fill no slot; nothing is invented to fill the count. `optIn` names the
 * experiments a run includes only when `--templates` names them.
 */
export function formatTemplates(
  experiments: readonly Pick<ExperimentDescriptor, 'id' | 'title' | 'slots'>[],
  optIn: readonly string[] = [],
): string {
  const total = AXES.reduce((sum, axis) => sum + PANEL_SLOTS[axis], 0);
  const coverage = panelCoverage(experiments);
  const implemented = coverage.reduce((sum, row) => sum + row.implemented.length, 0);
  const lines = [
    `Registered experiments: ${experiments.map((e) => e.id).join(', ')}`,
    ...(optIn.length === 0
      ? []
      : [`Opt-in (run only when --templates names them): ${optIn.join(', ')}`]),
    `Specification v0.1 panel: ${total} tests (4 R, 8 M, 6 C, 6 A, 6 I); ${implemented} implemented, ${total - implemented} await the specification's texts (the seeds name the counts, not the tests).`,
    '',
  ];
  for (const row of coverage) {
    lines.push(
      `${row.axis}: ${row.implemented.length} of ${row.slots} implemented, ${row.awaiting} awaiting the specification's texts`,
    );
    for (const claim of row.implemented)
      lines.push(`  implemented  ${claim.experimentId}: ${claim.what}`);
    for (const claim of row.partial)
      lines.push(`  partial      ${claim.experimentId}: ${claim.what} (partial: fills no slot)`);
  }
  lines.push('', 'Run a subset: chi pilot --templates id,id,...');
  return `${lines.join('\n')}\n`;
}
