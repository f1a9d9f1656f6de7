import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve, sep } from 'node:path';
import type { InspectEvalLog } from '../inspect/json';

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

type Header = {
  eval_id: string;
  run_id: string;
  task: string;
  task_id: string;
  task_version: number | string;
  model: string;
};

/**
 * The `listing.json` entry of a log, as Inspect's `write_log_listing` writes it (`to_overview`:
 * the header's IDs, model, status, times and the first metric of the first score, None fields
 * left out).
 */
function overview(log: InspectEvalLog): Record<string, unknown> {
  const header = log.eval as Header;
  const stats = log.stats as { started_at: string; completed_at: string };
  const scores = (log.results as { scores: { metrics: Record<string, unknown> }[] } | null)?.scores;
  const primary = Object.values(scores?.[0]?.metrics ?? {})[0];
  return {
    eval_id: header.eval_id,
    run_id: header.run_id,
    task: header.task,
    task_id: header.task_id,
    task_version: header.task_version,
    version: log.version,
    status: log.status,
    model: header.model,
    started_at: stats.started_at,
    completed_at: stats.completed_at,
    ...(primary === undefined ? {} : { primary_metric: primary }),
  };
}

/**
 * Writes what `inspect view bundle` writes: the viewer, the logs in `logs/`, their
 * `logs/listing.json`, and the log directory embedded in `index.html` (`log_dir_context`).
 */
export async function writeInspectViewerBundle(
  logs: ReadonlyMap<string, InspectEvalLog>,
  outDir: string,
): Promise<void> {
  await cp(INSPECT_VIEWER_DIST, outDir, { recursive: true });
  await mkdir(join(outDir, 'logs'), { recursive: true });
  const listing: Record<string, unknown> = {};
  for (const [name, log] of logs) {
    await writeFile(join(outDir, 'logs', name), `${JSON.stringify(log, null, 2)}\n`);
    listing[name] = overview(log);
  }
  await writeFile(join(outDir, 'logs', 'listing.json'), JSON.stringify(listing, null, 2));
  const index = join(outDir, 'index.html');
  const html = await readFile(index, 'utf8');
  await writeFile(
    index,
    html.replace(
      '</head>',
      '  <script id="log_dir_context" type="application/json">{"log_dir": "logs"}</script>\n  </head>',
    ),
  );
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
