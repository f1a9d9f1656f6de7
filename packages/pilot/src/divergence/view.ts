import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { runFolderPaths } from '@chi/run/internal';
import { RunFolderDamagedError } from '@chi/spec';

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

/**
 * `chi view` for a divergence release: serves its `report.html` on 127.0.0.1 (`port` 0 picks a
 * free one), re-read on every request so a resumed run's new release shows on reload.
 */
export async function startDivergenceViewServer(
  release: string,
  port = 0,
): Promise<{ readonly url: string; close(): Promise<void> }> {
  await reportHtml(release);
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (request.method !== 'GET' || (path !== '/' && path !== '/index.html')) {
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end('not found');
      return;
    }
    reportHtml(release).then(
      (html) => {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        response.end(html);
      },
      (error: unknown) => {
        response.writeHead(500, { 'content-type': 'text/plain' });
        response.end(error instanceof Error ? error.message : String(error));
      },
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
