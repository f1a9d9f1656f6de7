import type { BootstrapEstimate } from '@chi/stats';
import { formatNumber } from '../document/format-number';
import type { CompareMetric, ViewComparison } from './view-compare';

/** The HTML of `chi view`'s comparison pages: server-rendered, no script, the viewer's style. */

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(title: string, style: string, body: string): string {
  return `<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>${style}</style></head><body><main>${body}</main></body></html>\n`;
}

function interval(estimate: BootstrapEstimate): string {
  const mean = estimate.estimate === null ? 'undefined' : formatNumber(estimate.estimate);
  if (estimate.interval === null)
    return `${mean} (no interval: ${estimate.intervalOmittedReason.replace(/_/g, ' ')})`;
  return `${mean} [${formatNumber(estimate.interval.lower)}, ${formatNumber(estimate.interval.upper)}]`;
}

function metricDetails(metric: CompareMetric, index: number): string {
  // an EIMC is a load: a whole number of records
  const value = metric.name.startsWith('EIMC') ? String : (v: number) => formatNumber(v);
  const rows = metric.worlds
    .map(
      (w) =>
        `<tr><td>${w.worldSeed}</td><td>${value(w.a)}</td><td>${value(w.b)}</td><td>${value(w.difference)}</td></tr>`,
    )
    .join('');
  return `<details data-testid="compare-worlds-${index}"><summary>${escapeHtml(metric.name)}: ${metric.worlds.length} paired worlds</summary><table><thead><tr><th>World seed</th><th>A</th><th>B</th><th>B − A</th></tr></thead><tbody>${rows}</tbody></table></details>`;
}

/** Where a comparison page links back to, and what it lists above its title (a static bundle). */
export interface ComparisonPageLinks {
  /**
   * The way back: `./` on the server (the default), `index.html` in a bundle (where `./` is a
   * folder listing), null for none (a bundle of one comparison).
   */
  readonly back?: string | null;
  /** HTML placed under the back link: the bundle's list of the other pairs it holds. */
  readonly nav?: string;
}

/** The comparison page (`/compare`): sides, what differs, the paired differences, per world. */
export function comparisonPage(
  comparison: ViewComparison,
  style: string,
  level: number,
  links: ComparisonPageLinks = {},
): string {
  const { a, b } = comparison;
  const side = (name: string, s: ViewComparison['a']) =>
    `<li><strong>${name}</strong>: ${escapeHtml(s.label)}, system <code>${escapeHtml(s.system)}</code> (${escapeHtml(s.model)})</li>`;
  const notes =
    a.label === b.label
      ? '<p data-testid="compare-same">Two systems of one run: the same worlds, prompts and settings; the systems are what differs.</p>'
      : comparison.differences.length === 0
        ? '<p data-testid="compare-same">Same configuration and model on both sides.</p>'
        : `<p class="banner" data-testid="compare-differences">Not like for like: ${comparison.differences.map(escapeHtml).join('; ')}.</p>`;
  const unpaired = comparison.unpairedWorlds;
  const summary = comparison.metrics
    .map(
      (m, i) =>
        `<tr data-testid="compare-row"><td>${escapeHtml(m.name)}</td><td>${m.worlds.length}</td><td data-testid="compare-mean-${i}">${interval(m.meanDifference)}</td></tr>`,
    )
    .join('');
  const body = [
    links.back === null ? '' : `<p><a href="${escapeHtml(links.back ?? './')}">back</a></p>`,
    links.nav ?? '',
    '<h1>Compare, paired by world</h1>',
    comparison.banner === null
      ? ''
      : `<p class="banner" data-testid="compare-banner">${escapeHtml(comparison.banner)}</p>`,
    `<ul>${side('A', a)}${side('B', b)}</ul>`,
    notes,
    `<p data-testid="compare-paired">${comparison.pairedWorlds.length} world seeds ${a.label === b.label ? 'of the run' : 'in both runs'} are paired${unpaired.a + unpaired.b === 0 ? '' : ` (${unpaired.a} only in A and ${unpaired.b} only in B are left out)`}. Each row: the mean over paired worlds of B − A, with a ${Math.round(level * 100)}% cluster-bootstrap interval over worlds (expanded percentile). Q_M and EIMC are each world's own (EIMC 0: no tested load passes); they are not the report's curve estimates.</p>`,
    `<table data-testid="compare-table"><thead><tr><th>Quantity</th><th>Paired worlds</th><th>Mean B − A [${Math.round(level * 100)}% CI]</th></tr></thead><tbody>${summary}</tbody></table>`,
    ...comparison.metrics.map(metricDetails),
  ].join('\n');
  return page(`chi view: compare ${a.label} and ${b.label}`, style, body);
}

/** The page of a refused comparison: the one-line reason, and the way back. */
export function comparisonRefusedPage(message: string, style: string): string {
  return page(
    'chi view: cannot compare',
    style,
    `<p><a href="./">back</a></p><h1>Cannot compare</h1><p class="banner" data-testid="compare-refused">${escapeHtml(message)}</p>`,
  );
}

/**
 * The form of the folder index: two runs (or two systems of one run: the same run twice) to
 * compare; the system fields offer `systems`, the system ids of the folder's runs.
 */
export function compareForm(runs: readonly string[], systems: readonly string[] = []): string {
  const options = (selected: number) =>
    runs
      .map(
        (r, i) =>
          `<option value="${escapeHtml(r)}"${i === selected ? ' selected' : ''}>${escapeHtml(r)}</option>`,
      )
      .join('');
  const list = `<datalist id="compare-systems">${systems.map((id) => `<option value="${escapeHtml(id)}">`).join('')}</datalist>`;
  return `<h2>Compare two runs, paired by world</h2><p>Or two systems of one run: choose it as A and B and name the systems.</p><form action="compare" method="get" data-testid="compare-form"><label>A <select name="a">${options(0)}</select></label> <label>system <input name="sa" size="14" list="compare-systems" placeholder="first shared"></label><br><label>B <select name="b">${options(Math.min(1, runs.length - 1))}</select></label> <label>system <input name="sb" size="14" list="compare-systems" placeholder="same as A"></label> <button type="submit">Compare</button>${list}</form>`;
}
