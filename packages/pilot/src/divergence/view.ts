import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { runFolderPaths } from '@chi/run/internal';
import { RunFolderDamagedError } from '@chi/spec';
import { divergenceCell, readDivergenceViewAnalysis, readDivergenceWorldRows } from './view-data';
import {
  divergenceCellPage,
  divergenceNotFoundPage,
  divergenceOverviewPage,
  divergenceSystemPage,
} from './view-pages';

/**
 * The divergence release a `chi view` target names: the release itself, or the `release/` of a
 * divergence run folder; null when `dir` is neither (the default pilot's viewer then applies).
 */
export function divergenceViewRelease(dir: string): string | null {
  const root = resolve(dir);
  if (existsSync(join(root, 'divergence.json'))) return root;
  const release = runFolderPaths(root).releaseDir;
  if (existsSync(runFolderPaths(root).plan) && existsSync(join(release, 'divergence.json')))
    return release;
  return null;
}

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

/**
 * `chi view --bundle OUT` for a divergence release: `OUT/index.html` is the release's
 * `report.html` (self-contained, no scripts), which opens from the file system.
 */
export async function writeDivergenceViewBundle(release: string, outDir: string): Promise<string> {
  const html = await reportHtml(release);
  const out = resolve(outDir);
  await mkdir(out, { recursive: true });
  const index = join(out, 'index.html');
  await writeFile(index, html);
  return index;
}

type Answer = { readonly status: number; readonly type: string; readonly body: string };

const HTML = 'text/html; charset=utf-8';

/** Answers one GET of the divergence viewer: each page read from the release on demand. */
async function answer(release: string, path: string): Promise<Answer> {
  if (path === '/report.html') return { status: 200, type: HTML, body: await reportHtml(release) };
  const figure = /^\/figures\/([a-z0-9-]+\.svg)$/.exec(path);
  if (figure !== null)
    return {
      status: 200,
      type: 'image/svg+xml',
      body: await readFile(join(release, 'figures', figure[1] as string), 'utf8'),
    };
  const analysis = await readDivergenceViewAnalysis(release);
  const notFound = (what: string): Answer => ({
    status: 404,
    type: HTML,
    body: divergenceNotFoundPage(analysis, what),
  });
  if (path === '/' || path === '/index.html')
    return { status: 200, type: HTML, body: divergenceOverviewPage(analysis) };
  const parts = path.split('/').slice(1).map(decodeURIComponent);
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
 * `chi view` for a divergence release: a drill-down served on 127.0.0.1 (`port` 0 picks a free
 * one): the systems' headline, per system the grid of series and of arms by checkpoint and the
 * dynamics table with intervals and method, per cell its per-world values, and the release's
 * `report.html` and figures. Every page is read from the release on request (a resumed run's new
 * release shows on reload); no page ships the run whole.
 */
export async function startDivergenceViewServer(
  release: string,
  port = 0,
): Promise<{ readonly url: string; close(): Promise<void> }> {
  await readDivergenceViewAnalysis(release);
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const reply = (status: number, type: string, body: string) => {
      response.writeHead(status, {
        'content-type': type,
        'content-length': Buffer.byteLength(body),
        'cache-control': 'no-store',
      });
      response.end(body);
    };
    if (request.method !== 'GET') {
      reply(405, 'text/plain', 'only GET');
      return;
    }
    answer(release, path).then(
      (page) => reply(page.status, page.type, page.body),
      (error: unknown) =>
        reply(500, 'text/plain', error instanceof Error ? error.message : String(error)),
    );
  });
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => done());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}/`,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
