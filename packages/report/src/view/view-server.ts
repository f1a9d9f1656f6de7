import { stat } from 'node:fs/promises';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { InvalidArgumentError } from '@chi/spec';
import { viewPage } from './view-app';
import { readViewData, type ViewData } from './view-data';
import { readViewProgress } from './view-progress';

/** Options of {@link startViewServer}. */
export interface ViewServerOptions {
  /** A run folder or a release. */
  readonly dir: string;
  /** Loopback only: `127.0.0.1` by default. */
  readonly host?: string;
  /** 0 (the default) picks a free port. */
  readonly port?: number;
}

/** A running viewer. */
export interface ViewServer {
  /** e.g. `http://127.0.0.1:43127/` */
  readonly url: string;
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

function send(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, {
    'content-type': type,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
  });
  response.end(body);
}

/** Checks that `dir` holds a run (manifest.json and plan.json), else a typed error naming it. */
export async function assertRunFolder(dir: string): Promise<void> {
  for (const file of ['manifest.json', 'plan.json']) {
    const found = await stat(join(dir, file)).then(
      (s) => s.isFile(),
      () => false,
    );
    if (!found)
      throw new InvalidArgumentError(
        'DIR',
        `expected a run folder or a release holding ${file}, found none in ${dir}`,
      );
  }
}

/**
 * Serves the viewer for a run folder or a release on loopback: `/` the page, `/api/data` the
 * probes, summary and logs (re-read whenever the attempt log has grown), `/api/progress` the live
 * progress (read on every request).
 */
export async function startViewServer(options: ViewServerOptions): Promise<ViewServer> {
  const dir = resolve(options.dir);
  const host = options.host ?? '127.0.0.1';
  if (!LOOPBACK.has(host))
    throw new InvalidArgumentError(
      'host',
      `expected a loopback address (127.0.0.1, ::1, localhost), found ${JSON.stringify(host)}`,
    );
  await assertRunFolder(dir);
  let cached: { lines: number; data: ViewData } | null = null;
  const page = viewPage('');
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const answer = async (): Promise<void> => {
      if (request.method !== 'GET') return send(response, 405, 'text/plain', 'GET only');
      if (path === '/' || path === '/index.html')
        return send(response, 200, 'text/html; charset=utf-8', page);
      if (path === '/api/progress')
        return send(response, 200, 'application/json', JSON.stringify(await readViewProgress(dir)));
      if (path === '/api/data') {
        const progress = await readViewProgress(dir);
        if (cached === null || cached.lines !== progress.attemptLines)
          cached = { lines: progress.attemptLines, data: await readViewData(dir) };
        return send(response, 200, 'application/json', JSON.stringify(cached.data));
      }
      return send(response, 404, 'text/plain', 'not found');
    };
    answer().catch((error: unknown) =>
      send(response, 500, 'text/plain', error instanceof Error ? error.message : String(error)),
    );
  });
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 0, host, () => done());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/`,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
