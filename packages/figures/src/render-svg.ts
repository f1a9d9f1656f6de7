import { InvalidArgumentError } from '@chi/spec';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

/**
 * A vega-lite specification as plain JSON. Kept structural on purpose: vega-lite's own
 * declarations do not compile under `exactOptionalPropertyTypes` without `skipLibCheck`, so they
 * stay out of this package's public types; `renderFigureSvg` hands the object to vega-lite's
 * compiler, which validates it.
 */
export type VegaLiteSpec = { readonly [key: string]: unknown };

/** vega's logger at level None: compile warnings are not printed. */
const QUIET_LOGGER = vega.logger(vega.None);

/** A figure ready to render: a vega-lite spec plus the accessible name and description. */
export interface FigureSource {
  /** Stable identifier, `[a-z0-9-]+`; prefixes every SVG id so figures can share one HTML page. */
  readonly id: string;
  /** Accessible name, also the chart title. */
  readonly title: string;
  /** Accessible long description: what is plotted, units, denominators and missingness. */
  readonly description: string;
  /** The vega-lite specification (inline data only: no URLs). */
  readonly spec: VegaLiteSpec;
}

/** vega-scenegraph's text measurement hooks; exported at runtime but absent from vega's typings. */
interface TextMetricsHooks {
  width: (item: unknown, text: unknown) => number;
  readonly estimateWidth: (item: unknown, text: unknown) => number;
}

function textMetricsHooks(): TextMetricsHooks {
  const hooks = (vega as unknown as { textMetrics?: TextMetricsHooks }).textMetrics;
  if (hooks === undefined || typeof hooks.estimateWidth !== 'function') {
    throw new Error(
      'vega no longer exports textMetrics.estimateWidth: figure bytes could depend on installed fonts',
    );
  }
  return hooks;
}

const ID_PATTERN = /^[a-z0-9][a-z0-9-]*$/;

function escapeXml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

/**
 * Renders a vega-lite figure to SVG text in Node (vega-lite compiles, vega renders with the
 * `none` renderer), with identical bytes for identical inputs:
 * - text is measured by vega's font-size estimate, never by a canvas whose result would depend on
 *   the fonts installed on the machine (vega only measures with a canvas when the optional native
 *   `canvas` package is installed, which this package does not depend on);
 * - vega numbers clip paths and gradients with process-wide counters (in two bundled copies of
 *   vega-scenegraph, so they cannot be reset reliably): the ids are renumbered in order of first
 *   appearance and prefixed with the figure id, so they do not depend on what was rendered before
 *   and do not collide when several figures are inlined into one HTML page;
 * - the root element gets `role="graphics-document document"`, a `<title>` and a `<desc>` that
 *   `aria-labelledby` / `aria-describedby` point at.
 *
 * @throws InvalidArgumentError on a bad id or a spec that loads external data.
 *
 * @example
 * ```ts
 * const svg = await renderFigureSvg({
 *   id: 'demo', title: 'Q_M by load', description: 'Q_M (unitless, 0-1) by load N.',
 *   spec: { data: { values: [{ n: 32, q: 0.9 }] }, mark: 'point',
 *           encoding: { x: { field: 'n', type: 'quantitative' }, y: { field: 'q', type: 'quantitative' } } },
 * });
 * ```
 */
export async function renderFigureSvg(figure: FigureSource): Promise<string> {
  if (!ID_PATTERN.test(figure.id)) {
    throw new InvalidArgumentError(
      'figure.id',
      `expected lowercase letters, digits and dashes, found ${JSON.stringify(figure.id)}`,
    );
  }
  if (JSON.stringify(figure.spec).includes('"url"')) {
    throw new InvalidArgumentError(
      `figure ${figure.id}.spec`,
      'expected inline data only, found a "url" (figures must not load external resources)',
    );
  }
  // A library prints nothing: vega-lite's compile warnings (e.g. the forest plot's faceted
  // independent scales) would otherwise go to the console of every program that renders a figure.
  // Errors still throw.
  const compiled = compile(figure.spec as unknown as TopLevelSpec, { logger: QUIET_LOGGER }).spec;
  const textMetrics = textMetricsHooks();
  const previousWidth = textMetrics.width;
  textMetrics.width = textMetrics.estimateWidth;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  try {
    const svg = await view.toSVG();
    return decorate(svg, figure);
  } finally {
    view.finalize();
    textMetrics.width = previousWidth;
  }
}

function decorate(svg: string, figure: FigureSource): string {
  const prefix = `${figure.id}-`;
  // vega's only generated ids are clipN, gradient_N and p_gradient_N (definitions and url(#...)
  // uses): renumber each family from 1 in order of first appearance.
  const renumbered = new Map<string, string>();
  const counters = new Map<string, number>();
  const rename = (id: string): string => {
    const known = renumbered.get(id);
    if (known !== undefined) return known;
    const family = id.replace(/\d+$/, '');
    const next = (counters.get(family) ?? 0) + 1;
    counters.set(family, next);
    const fresh = `${prefix}${family}${next}`;
    renumbered.set(id, fresh);
    return fresh;
  };
  const renamed = svg.replace(
    /( id="|url\(#)((?:clip|gradient_|p_gradient_)\d+)/g,
    (_m, lead: string, id: string) => `${lead}${rename(id)}`,
  );
  const titleId = `${prefix}title`;
  const descId = `${prefix}desc`;
  const open = /^<svg([^>]*)>/.exec(renamed);
  if (open === null) throw new Error(`vega produced no <svg> root for figure ${figure.id}`);
  const attributes = `${open[1]} id="${prefix}figure" role="graphics-document document" aria-labelledby="${titleId}" aria-describedby="${descId}"`;
  const head = `<svg${attributes}><title id="${titleId}">${escapeXml(figure.title)}</title><desc id="${descId}">${escapeXml(figure.description)}</desc>`;
  return `${head}${renamed.slice(open[0].length)}\n`;
}
