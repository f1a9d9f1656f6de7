import { AXES, type ExperimentDescriptor, PANEL_SLOTS, panelCoverage } from '@chi/experiment';

/**
 * `chi templates`: what the seeds give (Specification v0.1's test counts per axis, without any
 * test's text) and, per axis, our own experiments that probe it. None of the 30 specification
 * tests is implemented: the seeds name the counts, not the tests, so an experiment is never
 * mapped onto a specification test; a partial task indicator is marked as one. `optIn` names the
 * experiments a run includes only when `--templates` names them.
 */
export function formatTemplates(
  experiments: readonly Pick<ExperimentDescriptor, 'id' | 'title' | 'slots'>[],
  optIn: readonly string[] = [],
): string {
  const total = AXES.reduce((sum, axis) => sum + PANEL_SLOTS[axis], 0);
  const lines = [
    `Registered experiments: ${experiments.map((e) => e.id).join(', ')}`,
    ...(optIn.length === 0
      ? []
      : [`Opt-in (run only when --templates names them): ${optIn.join(', ')}`]),
    `Specification v0.1: ${total} tests (4 R, 8 M, 6 C, 6 A, 6 I). The seeds give these counts per axis, not the tests' texts, so none of the ${total} is implemented here. Below, per axis, are our own experiments that probe it; none is one of the specification's tests.`,
    '',
  ];
  for (const row of panelCoverage(experiments)) {
    const ours = [...row.implemented, ...row.partial];
    lines.push(
      `${row.axis}: the specification has ${row.slots} tests (texts not given); our experiments on this axis: ${ours.length === 0 ? 'none' : ours.length}`,
    );
    for (const claim of row.implemented)
      lines.push(`  ours     ${claim.experimentId}: ${claim.what}`);
    for (const claim of row.partial)
      lines.push(`  partial  ${claim.experimentId}: ${claim.what} (a partial task indicator)`);
  }
  lines.push('', 'Run a subset: chi pilot --templates id,id,...');
  return `${lines.join('\n')}\n`;
}
