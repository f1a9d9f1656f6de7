import { type AxisId, type HumanDataRow, ValidationError, type ValidationIssue } from '@chi/spec';
import type { CalibrationParticipant } from '@chi/spec/internal';
import { AXIS_IDS } from './chi';

/** A validated participant sample and the test of every feature. */
export interface HumanSample {
  /** Participants sorted by ID, each with every feature of the sample. */
  readonly participants: readonly CalibrationParticipant[];
  /** The test each feature came from, per axis. */
  readonly tests: Partial<Record<AxisId, Record<string, string>>>;
}

/** Options of {@link humanSampleFromRows}. */
export interface HumanSampleOptions {
  /** Names row `index` in error messages; default `row <index + 1>`. */
  readonly rowLabel?: (index: number) => string;
  /** What is being validated, for the error's subject; default `human data`. */
  readonly subject?: string;
}

const key = (axis: AxisId, feature: string): string => `${axis}.${feature}`;

function sameGroups(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>) {
  const keysA = Object.keys(a).sort();
  const keysB = Object.keys(b).sort();
  return keysA.length === keysB.length && keysA.every((k, i) => k === keysB[i] && a[k] === b[k]);
}

/**
 * Groups human-data rows (one per participant, test and feature) into participants, refusing bad
 * data with one {@link ValidationError} that names every offending row: a non-finite value, a
 * participant measured twice on one feature, a feature reported under two tests, a participant
 * whose groups differ between rows, a feature with halves on some rows only, and a participant
 * missing a feature that others have. Rows are assumed to have passed `HumanDataRowSchema`.
 *
 * @throws ValidationError listing every problem, each at its row.
 */
export function humanSampleFromRows(
  rows: readonly HumanDataRow[],
  options: HumanSampleOptions = {},
): HumanSample {
  const label = options.rowLabel ?? ((index: number) => `row ${index + 1}`);
  const issues: ValidationIssue[] = [];
  const tests: Partial<Record<AxisId, Record<string, string>>> = {};
  const testRow = new Map<string, number>();
  const withHalves = new Map<string, { yes: number | null; no: number | null }>();
  const byParticipant = new Map<
    string,
    { firstRow: number; groups: Record<string, string>; cells: Map<string, number> }
  >();
  const participants = new Map<string, CalibrationParticipant>();

  rows.forEach((row, index) => {
    const at = label(index);
    const cell = key(row.axis, row.feature);
    if (!Number.isFinite(row.value)) {
      issues.push({
        path: `${at}.value`,
        message: `expected a finite number, found ${String(row.value)}`,
      });
      return;
    }
    if (row.halves !== undefined && !row.halves.every(Number.isFinite)) {
      issues.push({ path: `${at}.halves`, message: 'expected two finite numbers' });
      return;
    }
    const axisTests = tests[row.axis] ?? {};
    tests[row.axis] = axisTests;
    const knownTest = axisTests[row.feature];
    if (knownTest === undefined) {
      axisTests[row.feature] = row.test;
      testRow.set(cell, index);
    } else if (knownTest !== row.test) {
      issues.push({
        path: `${at}.test`,
        message: `feature ${cell} came from test ${JSON.stringify(knownTest)} on ${label(testRow.get(cell) ?? 0)}, here from ${JSON.stringify(row.test)}: one feature, one test`,
      });
    }
    const halves = withHalves.get(cell) ?? { yes: null, no: null };
    if (row.halves === undefined) halves.no ??= index;
    else halves.yes ??= index;
    withHalves.set(cell, halves);

    const groups = row.groups ?? {};
    let entry = byParticipant.get(row.participant);
    if (entry === undefined) {
      entry = { firstRow: index, groups, cells: new Map() };
      byParticipant.set(row.participant, entry);
      participants.set(row.participant, { id: row.participant, groups, features: {}, halves: {} });
    } else if (!sameGroups(entry.groups, groups)) {
      issues.push({
        path: `${at}.groups`,
        message: `participant ${JSON.stringify(row.participant)} has groups ${JSON.stringify(entry.groups)} on ${label(entry.firstRow)} but ${JSON.stringify(groups)} here`,
      });
    }
    const earlier = entry.cells.get(cell);
    if (earlier !== undefined) {
      issues.push({
        path: at,
        message: `duplicate: participant ${JSON.stringify(row.participant)} already has feature ${cell} on ${label(earlier)}`,
      });
      return;
    }
    entry.cells.set(cell, index);
    const participant = participants.get(row.participant) as CalibrationParticipant;
    const axisFeatures = participant.features[row.axis] ?? {};
    axisFeatures[row.feature] = row.value;
    participant.features[row.axis] = axisFeatures;
    if (row.halves !== undefined) {
      const axisHalves = participant.halves[row.axis] ?? {};
      axisHalves[row.feature] = [row.halves[0], row.halves[1]];
      participant.halves[row.axis] = axisHalves;
    }
  });

  for (const [cell, halves] of withHalves) {
    if (halves.yes !== null && halves.no !== null)
      issues.push({
        path: label(Math.max(halves.yes, halves.no)),
        message: `feature ${cell} has halves on ${label(halves.yes)} but none on ${label(halves.no)}: give halves on every row of a feature or on none`,
      });
  }
  const allCells = [...testRow.keys()];
  for (const [id, entry] of byParticipant) {
    const missing = allCells.filter((cell) => !entry.cells.has(cell));
    if (missing.length > 0)
      issues.push({
        path: label(entry.firstRow),
        message: `participant ${JSON.stringify(id)} (first seen here) is missing feature(s) ${missing.join(', ')} that other participants have`,
      });
  }
  if (rows.length > 0 && byParticipant.size < 2)
    issues.push({
      path: '',
      message: `expected at least 2 participants, found ${byParticipant.size}`,
    });
  if (rows.length === 0)
    issues.push({ path: '', message: 'expected at least one row, found none' });
  if (issues.length > 0) throw new ValidationError(options.subject ?? 'human data', issues);

  const sorted = [...participants.values()].sort((a, b) =>
    a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
  );
  const orderedTests: Partial<Record<AxisId, Record<string, string>>> = {};
  for (const axis of AXIS_IDS) if (tests[axis] !== undefined) orderedTests[axis] = tests[axis];
  return { participants: sorted, tests: orderedTests };
}
