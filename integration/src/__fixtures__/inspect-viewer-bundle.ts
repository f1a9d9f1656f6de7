import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve, sep } from 'node:path';

/** Inspect's prebuilt log viewer, vendored as a test fixture (see its README). */
export const INSPECT_VIEWER_DIST = join(
  import.meta.dirname,
  '..',
  '..',
  'test',
  'fixtures',
  'inspect-viewer',
  'www',
);

/**
 * Writes the viewer part of what `inspect view bundle` writes: the viewer, with the log directory
 * `logs/` embedded in `index.html` (`log_dir_context`). The logs and their `listing.json` are
 * what `chi export inspect` writes into `logs/`.
 */
export async function writeInspectViewerBundle(outDir: string): Promise<string> {
  await cp(INSPECT_VIEWER_DIST, outDir, { recursive: true });
  await mkdir(join(outDir, 'logs'), { recursive: true });
  const index = join(outDir, 'index.html');
  const html = await readFile(index, 'utf8');
  await writeFile(
    index,
    html.replace(
      '</head>',
      '  <script id="log_dir_context" type="application/json">{"log_dir": "logs"}</script>\n  </head>',
    ),
  );
  return join(outDir, 'logs');
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
};

/** A static file server of `root` on 127.0.0.1, on a port the system picks. */
export async function serveStatic(
  root: string,
): Promise<{ url: string; requests: string[]; close: () => Promise<void> }> {
  const base = resolve(root);
  const requests: string[] = [];
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname);
    requests.push(path);
    const file = normalize(join(base, path === '/' ? 'index.html' : path));
    if (!file.startsWith(base + sep)) {
      response.writeHead(403).end();
      return;
    }
    readFile(file).then(
      (body) => {
        response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
        response.end(body);
      },
      () => response.writeHead(404).end('not found'),
    );
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((done, fail) => {
        server.closeAllConnections();
        server.close((error) => (error === undefined ? done() : fail(error)));
      }),
  };
}
