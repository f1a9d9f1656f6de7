import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DIVERGENCE_PROTOCOL_ID } from '@chi/experiments/internal';
import type { ViewKind, ViewKindPage } from '@chi/report/viewer';
import { RunFolderDamagedError } from '@chi/spec';
import { divergenceCell, readDivergenceViewAnalysis, readDivergenceWorldRows } from './view-data';
import {
  divergenceCellPage,
  divergenceNotFoundPage,
  divergenceOverviewPage,
  divergenceSystemPage,
} from './view-pages';

async function reportHtml(release: string): Promise<string> {
  const path = join(release, 'report.html');
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new RunFolderDamagedError(
      path,
      'missing: write the release again (chi pilot --resume on the run folder) before viewing it',
      { cause: error },
    );
  }
}

type Answer = ViewKindPage;

const HTML = 'text/html; charset=utf-8';

/** A figure of the release (`figures/<name>.svg`), or null when it has none of that name. */
async function figureSvg(release: string, name: string): Promise<string | null> {
  if (!/^[a-z0-9-]+\.svg$/.test(name)) return null;
  return await readFile(join(release, 'figures', name), 'utf8').catch(() => null);
}

/**
 * Answers one GET of the divergence viewer (`parts`: the request path's decoded segments, made
 * safe by the report's viewer): each page read from the release on demand.
 */
async function answer(release: string, parts: readonly string[]): Promise<Answer> {
  const path = `/${parts.join('/')}`;
  if (path === '/report.html') return { status: 200, type: HTML, body: await reportHtml(release) };
  const figure = parts[0] === 'figures' && parts.length === 2 ? parts[1] : undefined;
  const svg = figure === undefined ? null : await figureSvg(release, figure);
  if (svg !== null) return { status: 200, type: 'image/svg+xml', body: svg };
  const analysis = await readDivergenceViewAnalysis(release);
  const notFound = (what: string): Answer => ({
    status: 404,
    type: HTML,
    body: divergenceNotFoundPage(analysis, what),
  });
  if (path === '/' || path === '/index.html')
    return { status: 200, type: HTML, body: divergenceOverviewPage(analysis) };
  if (parts[0] === 'system' && parts.length === 2) {
    const system = analysis.systems.find((candidate) => candidate.systemId === parts[1]);
    return system === undefined
      ? notFound(`no system ${parts[1]} in this release`)
      : { status: 200, type: HTML, body: divergenceSystemPage(analysis, system) };
  }
  if (parts[0] === 'cell' && parts.length === 3) {
    const [, systemId, statistic] = parts as [string, string, string];
    const cell = divergenceCell(analysis, systemId, statistic);
    if (cell === null) return notFound(`no cell ${statistic} of system ${systemId}`);
    const rows = await readDivergenceWorldRows(release, systemId, statistic);
    return { status: 200, type: HTML, body: divergenceCellPage(analysis, cell, rows) };
  }
  return notFound(`no page ${path}`);
}

/**
 * The divergence protocol's view kind (`@chi/report/viewer`'s `ViewKind`), which `chi view`
 * passes to the report's viewer: served, a drill-down on 127.0.0.1: the systems' headline, per
 * system the grid of series and of arms by checkpoint and the dynamics table with intervals and
 * method, per cell its per-world values, and the release's `report.html` and figures. Every page
 * is read from the release on request (a resumed run's new release shows on reload); no page
 * ships the run whole. Bundled (`--bundle OUT`), `OUT/index.html` is the release's
 * `report.html` (self-contained, no scripts), which opens from the file system.
 */
export const DIVERGENCE_VIEW_KIND: ViewKind = {
  specificationVersion: 'v1',
  protocol: DIVERGENCE_PROTOCOL_ID,
  name: 'divergence release',
  shows: 'systems, grids by checkpoint, dynamics, per-world values',
  open: async (release) => {
    await readDivergenceViewAnalysis(release);
  },
  answer,
  bundle: async (release) => new Map([['index.html', await reportHtml(release)]]),
};
