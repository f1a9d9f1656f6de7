import type { LayeredEstimate, ProfilesData } from '@chi/analysis/internal';
import type { FigureDefinition } from '@chi/figures';
import { canonicalJson } from '../canonical-json';
import { formatNumber } from '../document/format-number';
import type { ReportBlock } from '../document/report-block';
import { type CsvCell, toCsv } from './csv';

/** One table of the profiles: a CSV file and the same rows in the report. */
interface ProfileTable {
  readonly path: string;
  readonly caption: string;
  readonly columns: readonly string[];
  readonly rows: readonly Record<string, CsvCell>[];
}

const bounds = (interval: { lower: number; upper: number } | null) => ({
  lower: interval?.lower ?? null,
  upper: interval?.upper ?? null,
});

function layeredCells(prefix: string, value: LayeredEstimate): Record<string, CsvCell> {
  const w = bounds(value.world);
  const c = bounds(value.calibration);
  const j = bounds(value.combined);
  return {
    [prefix]: value.estimate,
    world_lower: w.lower,
    world_upper: w.upper,
    calibration_lower: c.lower,
    calibration_upper: c.upper,
    combined_lower: j.lower,
    combined_upper: j.upper,
    reason: value.reason,
  };
}

const LAYER_COLUMNS = [
  'world_lower',
  'world_upper',
  'calibration_lower',
  'calibration_upper',
  'combined_lower',
  'combined_upper',
];

function capacityText(capacity: readonly { test: string; estimate: number | null }[]): string {
  return capacity.map((c) => `${c.test} ${formatNumber(c.estimate)}`).join('; ');
}

/**
 * The tables of the two profiles and the calibration checks. Every row carries
 * `calibration_label` (`SYNTHETIC` for a made-up calibration, `none` without one).
 */
export function profileTables(data: ProfilesData): ProfileTable[] {
  const label = data.calibrationLabel ?? 'none';
  const calibrationId = data.comparison?.calibrationId ?? null;
  const tables: ProfileTable[] = [
    {
      path: 'profiles/capacity.csv',
      caption:
        'Capacity profile p: task scores per axis and test (world-bootstrap percentile intervals). Not a similarity.',
      columns: ['system', 'axis', 'test', 'measure', 'estimate', 'lower', 'upper', 'worlds'],
      rows: data.capacity.map((r) => ({
        system: r.systemId,
        axis: r.axis,
        test: r.test,
        measure: r.measure,
        estimate: r.estimate,
        ...bounds(r.interval),
        worlds: r.worlds,
      })),
    },
    {
      path: 'profiles/features.csv',
      caption:
        'Measured response-pattern features z (pilot-features-v1), world means with intervals.',
      columns: ['system', 'axis', 'test', 'feature', 'z', 'lower', 'upper', 'worlds'],
      rows: data.features.map((r) => ({
        system: r.systemId,
        axis: r.axis,
        test: r.test,
        feature: r.feature,
        z: r.z,
        ...bounds(r.interval),
        worlds: r.worlds,
      })),
    },
    {
      path: 'profiles/similarity.csv',
      caption: `Similarity profile h per axis against calibration ${calibrationId ?? '(none)'} [${label}]: world, calibration and combined intervals.`,
      columns: [
        'calibration_label',
        'calibration_id',
        'system',
        'axis',
        'h',
        ...LAYER_COLUMNS,
        'reason',
        'world_seeds',
      ],
      rows: data.similarity.map((r) => ({
        calibration_label: label,
        calibration_id: calibrationId,
        system: r.systemId,
        axis: r.axis,
        ...layeredCells('h', r.h),
        world_seeds: r.worldSeeds.join(' '),
      })),
    },
    {
      path: 'profiles/chi.csv',
      caption: `CHI from h only [${label}], with the capacity profile p beside it.`,
      columns: [
        'calibration_label',
        'calibration_id',
        'system',
        'chi',
        ...LAYER_COLUMNS,
        'reason',
        'capacity_p',
        'world_seeds',
      ],
      rows: data.chi.map((r) => ({
        calibration_label: label,
        calibration_id: calibrationId,
        system: r.systemId,
        ...layeredCells('chi', r.chi),
        capacity_p: capacityText(r.capacity),
        world_seeds: r.worldSeeds.join(' '),
      })),
    },
  ];
  if (data.comparison === null) return tables;
  const heldOut = data.heldOut;
  tables.push(
    {
      path: 'validity/held-out.csv',
      caption: `Held-out humans [${label}]: CHI of held-out participants against a calibration built from the other half (in-sample for contrast), and each system's CHI against the same half (the like-for-like comparison; a system's CHI elsewhere uses the full calibration).`,
      columns: [
        'calibration_label',
        'set',
        'participants',
        'min',
        'q25',
        'median',
        'q75',
        'max',
        'reason',
      ],
      rows:
        heldOut === null
          ? []
          : [
              { set: 'held-out', ...heldOut.heldOutChi },
              { set: 'calibration half (in-sample)', ...heldOut.inSampleChi },
              ...heldOut.systemsChi.map((row) => ({
                set: `system ${row.systemId} (against the calibration half)`,
                participants: null,
                min: null,
                q25: null,
                median: row.chi,
                q75: null,
                max: null,
              })),
            ].map((r) => ({ calibration_label: label, ...r, reason: heldOut.reason })),
    },
    {
      path: 'validity/reliability.csv',
      caption: `Split-half reliability of each calibrated feature [${label}] (Pearson r of odd/even halves; Spearman-Brown 2r/(1+r)).`,
      columns: [
        'calibration_label',
        'axis',
        'feature',
        'participants',
        'half_correlation',
        'spearman_brown',
        'reason',
      ],
      rows: data.reliability.map((r) => ({
        calibration_label: label,
        axis: r.axis,
        feature: r.feature,
        participants: r.participants,
        half_correlation: r.halfCorrelation,
        spearman_brown: r.spearmanBrown,
        reason: r.reason,
      })),
    },
    {
      path: 'validity/subgroups.csv',
      caption: `h and CHI against each subgroup's own calibration [${label}].`,
      columns: [
        'calibration_label',
        'system',
        'group',
        'level',
        'participants',
        'h_R',
        'h_M',
        'h_C',
        'h_A',
        'h_I',
        'chi',
        'reason',
      ],
      rows: data.subgroups.map((r) => ({
        calibration_label: label,
        system: r.systemId,
        group: r.group,
        level: r.level,
        participants: r.participants,
        h_R: r.h.R ?? null,
        h_M: r.h.M ?? null,
        h_C: r.h.C ?? null,
        h_A: r.h.A ?? null,
        h_I: r.h.I ?? null,
        chi: r.chi,
        reason: r.reason,
      })),
    },
    {
      path: 'validity/sensitivity.csv',
      caption: `CHI under the declared alternative weights and transforms, beside the primary [${label}].`,
      columns: [
        'calibration_label',
        'system',
        'variant',
        'weights',
        'transform',
        'chi',
        'difference',
        'reason',
      ],
      rows: data.sensitivity.map((r) => ({
        calibration_label: label,
        system: r.systemId,
        variant: r.variant,
        weights: r.weightsId,
        transform: r.transform,
        chi: r.chi,
        difference: r.difference,
        reason: r.reason,
      })),
    },
    {
      path: 'validity/imitation.csv',
      caption: `Imitation check [${label}]: SCRIPTED BASELINE imitators' h and CHI next to their capacity p (basis measured: the imitator system ran in this run; analytic-bound: computed from the calibration, nothing answered).`,
      columns: [
        'calibration_label',
        'system',
        'basis',
        'h_R',
        'h_M',
        'h_C',
        'h_A',
        'h_I',
        'chi',
        'capacity_p',
        'description',
        'reason',
      ],
      rows: data.imitation.map((r) => ({
        calibration_label: label,
        system: r.systemId,
        basis: r.basis,
        h_R: r.h.R ?? null,
        h_M: r.h.M ?? null,
        h_C: r.h.C ?? null,
        h_A: r.h.A ?? null,
        h_I: r.h.I ?? null,
        chi: r.chi,
        capacity_p: capacityText(r.capacity),
        description: r.description,
        reason: r.reason,
      })),
    },
  );
  return tables;
}

/** The release files of the profiles: `profiles/profiles.json` and one CSV per table. */
export function profileFiles(data: ProfilesData): Map<string, string> {
  const files = new Map<string, string>();
  files.set('profiles/profiles.json', canonicalJson(data));
  for (const table of profileTables(data)) files.set(table.path, toCsv(table.columns, table.rows));
  return files;
}

/** Columns that count things (worlds, participants): integers, printed without decimals. */
const COUNT_COLUMNS = new Set(['worlds', 'participants']);

function cellText(value: CsvCell, column: string): string {
  if (value === null) return '—';
  if (typeof value === 'number')
    return COUNT_COLUMNS.has(column) && Number.isInteger(value)
      ? String(value)
      : formatNumber(value);
  return String(value);
}

/** The report's header of a CSV column; the CSV keeps its machine names. */
const COLUMN_HEADERS: Readonly<Record<string, string>> = {
  system: 'System',
  axis: 'Axis',
  test: 'Test',
  measure: 'Measure',
  estimate: 'Estimate',
  lower: 'Lower',
  upper: 'Upper',
  worlds: 'Worlds',
  feature: 'Feature',
  z: 'Feature value z',
  calibration_label: 'Calibration label',
  calibration_id: 'Calibration',
  h: 'Similarity h',
  chi: 'CHI',
  world_lower: 'World interval lower',
  world_upper: 'World interval upper',
  calibration_lower: 'Calibration interval lower',
  calibration_upper: 'Calibration interval upper',
  combined_lower: 'Combined interval lower',
  combined_upper: 'Combined interval upper',
  reason: 'Reason',
  world_seeds: 'World seeds',
  capacity_p: 'Capacity p',
  participants: 'Participants',
  half_correlation: 'Split-half correlation',
  spearman_brown: 'Spearman–Brown reliability',
  difference: 'Difference',
};

function columnHeader(column: string): string {
  return COLUMN_HEADERS[column] ?? column.replace(/_/g, ' ');
}

/** Tables of h and CHI: without a calibration every row is null, so the report states it once. */
const NULL_WITHOUT_CALIBRATION = new Set(['profiles/similarity.csv', 'profiles/chi.csv']);

/**
 * The report section of the two profiles: p and h side by side, never merged, with the synthetic
 * label where it applies and the reason when h and CHI are null.
 */
export function profileReportBlocks(
  data: ProfilesData,
  figure?: { figure: FigureDefinition; svg: string; number: number },
): ReportBlock[] {
  const blocks: ReportBlock[] = [
    { kind: 'heading', level: 2, text: 'Capacity p and similarity h', id: 'profiles' },
    {
      kind: 'paragraph',
      text: 'Two profiles, kept apart: capacity p says how well each system did the declared tasks; similarity h says how close its response patterns are to a sampled human reference under the frozen comparison. CHI = 100 × Π h_j^w_j is computed from h only and is always shown with p. Neither is a measure of worth.',
    },
  ];
  if (data.comparison === null) {
    blocks.push({
      kind: 'paragraph',
      text: `h and CHI: null for every system and axis. ${data.reason} (their rows, all null, are in profiles/similarity.csv and profiles/chi.csv).`,
    });
  } else {
    if (data.calibrationLabel === 'SYNTHETIC')
      blocks.push({
        kind: 'banner',
        text: `SYNTHETIC calibration ${data.comparison.calibrationId}: no human was measured. Every h and CHI below demonstrates the calculation only and is not a human-likeness measurement.`,
      });
    blocks.push({
      kind: 'paragraph',
      text: `Calibration ${data.comparison.calibrationId} (sha256 ${data.comparison.calibrationSha256}, ${data.comparison.calibrationParticipants} participants), frozen in the manifest with weights ${data.comparison.weights.id} and the ${data.comparison.transform} transform. Uncertainty: ${data.uncertainty.combination}`,
    });
  }
  if (figure !== undefined) blocks.push({ kind: 'figure', ...figure });
  const tables: ReportBlock[] = [];
  for (const table of profileTables(data)) {
    if (data.comparison === null && NULL_WITHOUT_CALIBRATION.has(table.path)) continue;
    tables.push({
      kind: 'table',
      caption: `${table.caption} (${table.path})`,
      columns: table.columns.map(columnHeader),
      rows: table.rows.map((row) =>
        table.columns.map((column) => cellText(row[column] ?? null, column)),
      ),
    });
  }
  // the figure is the profile's headline; its rows are a click away, as in the CSV files
  if (tables.length > 0)
    blocks.push({ kind: 'details', summary: 'The profile tables, row by row', blocks: tables });
  return blocks;
}
