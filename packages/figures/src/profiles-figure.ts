import type { ProfilesData } from '@chi/analysis/internal';
import type { FigureDefinition } from './figures';

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';

/**
 * The figure of the two profiles, side by side and never merged: one row of panels for capacity p
 * (task scores) and one for similarity h (per axis; only with a calibration), one column per
 * system, bars with world-bootstrap (p) or combined (h) percentile whiskers. A SYNTHETIC
 * calibration is named in the title, subtitle and caption.
 */
export function profilesFigure(
  data: ProfilesData,
  systemLabels: ReadonlyMap<string, string>,
  colorScale?: { readonly domain: readonly string[]; readonly range: readonly string[] },
): FigureDefinition {
  // one colour per system, the release's palette (figures/system-colors), legend-free: the
  // column header names the system
  const color =
    colorScale === undefined
      ? { value: '#1f4e79' }
      : {
          field: 'system',
          type: 'nominal',
          scale: { domain: [...colorScale.domain], range: [...colorScale.range] },
          legend: null,
        };
  const label = (id: string) => systemLabels.get(id) ?? id;
  const synthetic = data.calibrationLabel === 'SYNTHETIC';
  const hRow = synthetic ? 'similarity h (SYNTHETIC calibration)' : 'similarity h';
  const rows = [
    ...data.capacity.map((r) => ({
      system: label(r.systemId),
      profile: 'capacity p',
      item: r.test,
      estimate: r.estimate,
      lower: r.interval?.lower ?? null,
      upper: r.interval?.upper ?? null,
    })),
    ...(data.comparison === null
      ? []
      : data.similarity.map((r) => ({
          system: label(r.systemId),
          profile: hRow,
          item: `h_${r.axis}`,
          estimate: r.h.estimate,
          lower: r.h.combined?.lower ?? null,
          upper: r.h.combined?.upper ?? null,
        }))),
  ];
  const title = 'Capacity p and similarity h, side by side';
  const subtitle = [
    ...(synthetic ? ['SYNTHETIC CALIBRATION: NO HUMAN WAS MEASURED'] : []),
    data.comparison === null
      ? 'No calibration: h (and CHI) are null; only p is drawn.'
      : `h against ${data.comparison.calibrationId}; whiskers: combined world x participant intervals.`,
  ];
  const caption = [
    synthetic
      ? `SYNTHETIC calibration ${data.comparison?.calibrationId}: h demonstrates the calculation only.`
      : '',
    'Capacity p (accuracy per behavior axis, Q_M per memory load) and similarity h (per axis) are different quantities and are never combined: high h is not better capacity, and high p is not human-likeness.',
    data.comparison === null
      ? `h and CHI are null: ${data.reason}`
      : 'Whiskers: p world-bootstrap, h combined (worlds and participants resampled independently) pointwise percentile intervals. A missing h bar is a null h (see profiles/similarity.csv for the reason).',
  ]
    .filter((part) => part !== '')
    .join(' ');
  return {
    id: 'profiles',
    title,
    description: `${title}: per system, task scores p and per-axis similarity h in 0–1.`,
    svgPath: 'figures/profiles.svg',
    caption,
    columns: ['system', 'profile', 'item', 'estimate', 'lower', 'upper'],
    rows,
    spec: {
      $schema: SCHEMA,
      title: { text: title, subtitle, anchor: 'start' },
      data: { values: rows },
      facet: {
        row: { field: 'profile', type: 'nominal', title: null, sort: ['capacity p', hRow] },
        column: {
          field: 'system',
          type: 'nominal',
          title: null,
          sort: [...new Set(data.capacity.map((r) => label(r.systemId)))],
        },
      },
      resolve: { scale: { x: 'independent' } },
      spec: {
        width: 150,
        height: 110,
        layer: [
          {
            mark: { type: 'bar' },
            encoding: {
              x: { field: 'item', type: 'nominal', title: null, sort: null },
              y: {
                field: 'estimate',
                type: 'quantitative',
                title: 'Score or similarity (0–1)',
                scale: { domain: [0, 1] },
              },
              color,
            },
          },
          // a thin mark at every estimate: a zero is drawn as zero, not as a missing bar
          {
            transform: [{ filter: 'isValid(datum.estimate)' }],
            mark: { type: 'tick', orient: 'horizontal', thickness: 2, opacity: 1 },
            encoding: {
              x: { field: 'item', type: 'nominal', sort: null },
              y: { field: 'estimate', type: 'quantitative' },
              color,
            },
          },
          {
            transform: [{ filter: 'isValid(datum.lower) && isValid(datum.upper)' }],
            mark: { type: 'rule', color: '#000' },
            encoding: {
              x: { field: 'item', type: 'nominal', sort: null },
              y: { field: 'lower', type: 'quantitative' },
              y2: { field: 'upper' },
            },
          },
        ],
      },
    },
  };
}
