import { DIVERGENCE_INTERVAL_METHOD_LABELS } from '@chi/experiments/internal';
import {
  DIVERGENCE_SERIES,
  type DivergenceEstimate,
  type DivergenceSystemResult,
  formatEstimate,
  formatFamilies,
} from './analyze';
import { divergenceBanner, divergenceSystemLabel } from './figures';
import type { DivergenceCell, DivergenceViewAnalysis, DivergenceWorldRow } from './view-data';

/**
 * The pages of `chi view` on a divergence release, rendered on the server from the analysis (and
 * one cell's per-world values): plain HTML with links, no script, no data shipped whole.
 */

const STYLE = `body{font-family:system-ui,sans-serif;margin:0;color:#111}main{max-width:1200px;margin:0 auto;padding:1rem 1.5rem}
.banner{background:#fff3cd;border:2px solid #b58100;padding:.5rem .8rem;font-weight:600}
table{border-collapse:collapse;font-size:.85rem;margin:.5rem 0}th,td{border:1px solid #ccc;padding:.2rem .45rem;text-align:left;vertical-align:top}
th{background:#f3f3f3}td.null{color:#666}tr.out td{color:#666;background:#fafafa}.crumbs{color:#555}
a{color:#1a4d8f}h1{font-size:1.4rem}`;

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/** The path of a system's grid page. */
export function systemHref(systemId: string): string {
  return `/system/${encodeURIComponent(systemId)}`;
}

/** The path of a cell's per-world page. */
export function cellHref(systemId: string, statistic: string): string {
  return `/cell/${encodeURIComponent(systemId)}/${encodeURIComponent(statistic)}`;
}

function page(
  analysis: DivergenceViewAnalysis,
  title: string,
  crumbs: string,
  body: string[],
): string {
  const banner = divergenceBanner(analysis);
  return `${[
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:\">",
    // no favicon request (the viewer has none to serve)
    '<link rel="icon" href="data:,">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    '<main>',
    `<p class="crumbs">${crumbs}</p>`,
    `<h1>${escapeHtml(title)}</h1>`,
    ...(banner === null ? [] : [`<p class="banner" role="note">${escapeHtml(banner)}</p>`]),
    ...body,
    '</main>',
    '</body>',
    '</html>',
  ].join('\n')}\n`;
}

function rootCrumb(analysis: DivergenceViewAnalysis): string {
  return `<a href="/">divergence protocol ${escapeHtml(analysis.protocol)}</a>`;
}

/** A short cell: the estimate with its pointwise interval, or null. */
function shortEstimate(value: DivergenceEstimate): string {
  if (value.estimate === null) return 'null';
  const interval =
    value.lower === null || value.upper === null
      ? ''
      : ` [${value.lower.toFixed(3)}, ${value.upper.toFixed(3)}]`;
  return `${value.estimate.toFixed(3)}${interval}`;
}

function linkedCell(systemId: string, statistic: string, value: DivergenceEstimate): string {
  const title = escapeHtml(formatEstimate(value));
  return `<td${value.estimate === null ? ' class="null"' : ''} title="${title}"><a href="${cellHref(systemId, statistic)}">${escapeHtml(shortEstimate(value))}</a></td>`;
}

function methodText(analysis: DivergenceViewAnalysis): string {
  const a = analysis.analysis;
  return `Intervals: pointwise ${Math.round(a.level * 100)}% from the clustered bootstrap over worlds (${a.resamples} resamples, seed ${a.seed}), read by the ${DIVERGENCE_INTERVAL_METHOD_LABELS[a.intervalMethod]} method; simultaneous bands max-|t| per family. Primary checkpoint (manifest): ${analysis.primaryCheckpoint}.`;
}

/** The first page: every system's headline and a link to its grid, the report and the files. */
export function divergenceOverviewPage(analysis: DivergenceViewAnalysis): string {
  const rows = analysis.systems.map((system) => {
    const primary = system.trajectory.find(
      (point) => point.checkpoint === analysis.primaryCheckpoint,
    );
    return `<tr><td><a href="${systemHref(system.systemId)}">${escapeHtml(divergenceSystemLabel(system))}</a></td>${
      primary === undefined
        ? '<td class="null">null</td>'
        : linkedCell(system.systemId, `excess@${analysis.primaryCheckpoint}`, primary.series.excess)
    }<td>${system.trajectory.length} checkpoints, ${system.dynamics.length} dynamics</td></tr>`;
  });
  return page(analysis, `Divergence protocol ${analysis.protocol}`, 'chi view', [
    `<p>${escapeHtml(methodText(analysis))}</p>`,
    '<table id="systems">',
    `<thead><tr><th scope="col">system</th><th scope="col">excess divergence at checkpoint ${analysis.primaryCheckpoint}</th><th scope="col">grid</th></tr></thead>`,
    `<tbody>\n${rows.join('\n')}\n</tbody>`,
    '</table>',
    `<p>Excluded instances: ${analysis.excludedInstances.length}. ${
      analysis.notApplicableArms === undefined
        ? ''
        : `Arms not applicable: ${analysis.notApplicableArms.map((arm) => escapeHtml(`${arm.arm} (${arm.reason})`)).join('; ')}. `
    }The whole report: <a href="/report.html">report.html</a>.</p>`,
  ]);
}

function seriesGrid(system: DivergenceSystemResult): string[] {
  const checkpoints = system.trajectory.map((point) => point.checkpoint);
  return [
    '<table id="series-grid">',
    `<caption>Series × checkpoint (pointwise intervals; hover for the band and worlds; click for the per-world values)</caption>`,
    `<thead><tr><th scope="col">series</th>${system.trajectory.map((point) => `<th scope="col">${point.checkpoint} ${escapeHtml(point.phase)}</th>`).join('')}</tr></thead>`,
    '<tbody>',
    ...DIVERGENCE_SERIES.map(
      (series) =>
        `<tr><th scope="row">${series}</th>${system.trajectory
          .map((point) =>
            linkedCell(system.systemId, `${series}@${point.checkpoint}`, point.series[series]),
          )
          .join('')}</tr>`,
    ),
    '</tbody>',
    '</table>',
    ...(checkpoints.length === 0 ? ['<p>No checkpoint.</p>'] : []),
  ];
}

function accuracyGrid(system: DivergenceSystemResult): string[] {
  const checkpoints = [...new Set(system.taskAccuracy.map((cell) => cell.checkpoint))];
  const arms = [...new Set(system.taskAccuracy.map((cell) => cell.arm))];
  return [
    '<table id="arm-grid">',
    '<caption>Task accuracy: arm × checkpoint (click a cell for its per-world values)</caption>',
    `<thead><tr><th scope="col">arm</th>${checkpoints.map((c) => `<th scope="col">${c}</th>`).join('')}</tr></thead>`,
    '<tbody>',
    ...arms.map(
      (arm) =>
        `<tr><th scope="row">${escapeHtml(arm)}</th>${checkpoints
          .map((checkpoint) => {
            const cell = system.taskAccuracy.find(
              (candidate) => candidate.arm === arm && candidate.checkpoint === checkpoint,
            );
            return cell === undefined
              ? '<td></td>'
              : linkedCell(system.systemId, `accuracy:${arm}@${checkpoint}`, cell.value);
          })
          .join('')}</tr>`,
    ),
    '</tbody>',
    '</table>',
  ];
}

function band(value: DivergenceEstimate): string {
  return value.simultaneousLower === null || value.simultaneousUpper === null
    ? '—'
    : `[${value.simultaneousLower.toFixed(3)}, ${value.simultaneousUpper.toFixed(3)}]`;
}

function dynamicsTable(analysis: DivergenceViewAnalysis, system: DivergenceSystemResult): string[] {
  const method = DIVERGENCE_INTERVAL_METHOD_LABELS[analysis.analysis.intervalMethod];
  return [
    '<table id="dynamics">',
    `<caption>CHIS dynamics: estimate, pointwise interval (${escapeHtml(method)}), simultaneous band, worlds, definition</caption>`,
    '<thead><tr><th scope="col">dynamic</th><th scope="col">estimate</th><th scope="col">pointwise interval</th><th scope="col">simultaneous band</th><th scope="col">worlds</th><th scope="col">definition</th><th scope="col">inputs</th></tr></thead>',
    '<tbody>',
    ...system.dynamics.map((dynamic) => {
      const v = dynamic.value;
      const interval =
        v.lower === null || v.upper === null
          ? escapeHtml(v.reason ?? '—')
          : `[${v.lower.toFixed(3)}, ${v.upper.toFixed(3)}]`;
      return `<tr><th scope="row">${dynamic.name}</th>${linkedCell(system.systemId, dynamic.name, v)}<td>${interval}</td><td>${band(v)}</td><td>${v.worlds}/${v.plannedWorlds}</td><td>${escapeHtml(dynamic.definition)}</td><td>${escapeHtml(dynamic.inputs)}</td></tr>`;
    }),
    '</tbody>',
    '</table>',
  ];
}

/** A system's page: the series grid, the arm × checkpoint grid and the dynamics table. */
export function divergenceSystemPage(
  analysis: DivergenceViewAnalysis,
  system: DivergenceSystemResult,
): string {
  return page(analysis, divergenceSystemLabel(system), rootCrumb(analysis), [
    `<p>${escapeHtml(methodText(analysis))} ${escapeHtml(formatFamilies(system))}</p>`,
    ...seriesGrid(system),
    ...accuracyGrid(system),
    ...dynamicsTable(analysis, system),
  ]);
}

/** A cell's page: its estimate and every planned world's value, in or out of its world set. */
export function divergenceCellPage(
  analysis: DivergenceViewAnalysis,
  cell: DivergenceCell,
  rows: readonly DivergenceWorldRow[],
): string {
  const inSet = rows.filter((row) => row.inWorldSet).length;
  return page(
    analysis,
    `${divergenceSystemLabel(cell.system)}: ${cell.label}`,
    `${rootCrumb(analysis)} › <a href="${systemHref(cell.system.systemId)}">${escapeHtml(cell.system.systemId)}</a>`,
    [
      `<p id="estimate">${escapeHtml(formatEstimate(cell.value))}</p>`,
      `<p>${escapeHtml(methodText(analysis))} The estimate is the mean over the worlds in its world set (${inSet} of ${rows.length} planned worlds); a world outside it has no defined value, with the reason.</p>`,
      '<table id="worlds">',
      `<caption>Per-world values of ${escapeHtml(cell.statistic)} (divergence-worlds.csv)</caption>`,
      '<thead><tr><th scope="col">world seed</th><th scope="col">value</th><th scope="col">in world set</th><th scope="col">reason</th></tr></thead>',
      '<tbody>',
      ...rows.map(
        (row) =>
          `<tr${row.inWorldSet ? '' : ' class="out"'}><td>${row.worldSeed}</td><td>${row.value === null ? 'null' : String(row.value)}</td><td>${row.inWorldSet ? 'yes' : 'no'}</td><td>${escapeHtml(row.reason)}</td></tr>`,
      ),
      '</tbody>',
      '</table>',
    ],
  );
}

/** The page of a path the viewer does not have. */
export function divergenceNotFoundPage(analysis: DivergenceViewAnalysis, what: string): string {
  return page(analysis, 'Not found', rootCrumb(analysis), [`<p>${escapeHtml(what)}</p>`]);
}
