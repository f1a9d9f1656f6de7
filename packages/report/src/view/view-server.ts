import { readdir, readFile, stat } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, join, resolve } from 'node:path';
import { RUN_FILE_NAME } from '@chi/run/internal';
import { InvalidArgumentError } from '@chi/spec';
import { answerViewApi } from './view-api';
import { VIEW_STYLE, viewPage } from './view-app';
import { compareForm } from './view-compare-page';
import { answerCompare } from './view-compare-route';
import { type ViewedRelease, type ViewKind, viewKindOf, viewPathSegments } from './view-kind';
import { openViewRun, type ViewRun } from './view-run';
import type { ViewStudySource } from './view-study';
import { SERVED_STUDY_LINKS, studyPage } from './view-study-page';

/** Options of {@link startViewServer}. */
export interface ViewServerOptions {
  /** A run folder or a release, or a folder of them. */
  readonly dir: string;
  /**
   * Serve these runs (folders or releases) as a folder of runs instead, each named by its folder
   * name: `chi view RUN_A RUN_B` (`dir` is then only where relative names resolve).
   */
  readonly runs?: readonly string[];
  /**
   * Serve a study (`chi view STUDY_DIR`): `/` is its study page (`/api/study` its data as JSON),
   * and its sessions are the folder's runs, read again on every request (`runs` is then ignored).
   */
  readonly study?: ViewStudySource;
  /**
   * The view kinds of protocols other than the default pilot's (e.g. the divergence protocol's):
   * when `dir` is a release of one, or a run folder whose `release/` is, that kind's pages are
   * served instead (`viewKindOf`). Not consulted with `runs` or `study`.
   */
  readonly kinds?: readonly ViewKind[];
  /** Loopback only: `127.0.0.1` by default. */
  readonly host?: string;
  /** 0 (the default) picks a free port. */
  readonly port?: number;
}

/** A running viewer. */
export interface ViewServer {
  /** e.g. `http://127.0.0.1:43127/` */
  readonly url: string;
  /** The release served through a view kind (`kinds`), or absent for the default viewer. */
  readonly viewed?: ViewedRelease;
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

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
}

/** Whether `dir` holds a run (a run folder or a release: manifest.json and plan.json). */
export async function isRunFolder(dir: string): Promise<boolean> {
  return (
    (await isFile(join(dir, RUN_FILE_NAME.manifest))) &&
    (await isFile(join(dir, RUN_FILE_NAME.plan)))
  );
}

/** Checks that `dir` holds a run (manifest.json and plan.json), else a typed error naming it. */
export async function assertRunFolder(dir: string): Promise<void> {
  for (const file of [RUN_FILE_NAME.manifest, RUN_FILE_NAME.plan]) {
    if (!(await isFile(join(dir, file))))
      throw new InvalidArgumentError(
        'DIR',
        `expected a run folder or a release holding ${file}, found none in ${dir}`,
      );
  }
}

/** The runs of a folder of runs: its sub-folders that are run folders or releases, by name. */
async function childRuns(dir: string): Promise<Map<string, string>> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const runs: string[] = [];
  for (const entry of entries)
    if (entry.isDirectory() && (await isRunFolder(join(dir, entry.name)))) runs.push(entry.name);
  return new Map(runs.sort().map((name) => [name, join(dir, name)]));
}

/** Runs named one by one (`runs`), by folder name (a repeated name gets `-2`, `-3`), or null. */
async function listedRuns(
  dir: string,
  runs: readonly string[] | undefined,
): Promise<Map<string, string> | null> {
  if (runs === undefined) return null;
  const named = new Map<string, string>();
  for (const run of runs) {
    const path = resolve(dir, run);
    await assertRunFolder(path);
    const base = basename(path);
    let name = base;
    for (let n = 2; named.has(name); n++) name = `${base}-${n}`;
    named.set(name, path);
  }
  return named;
}

/** A study's session runs by folder name (`s0`, `s1`, ...): those that hold a run already. */
async function studyRuns(runs: readonly string[]): Promise<Map<string, string>> {
  const named = new Map<string, string>();
  for (const run of runs) if (await isRunFolder(run)) named.set(basename(run), run);
  return named;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The system ids of the folder's runs, in run order, each once (a manifest that cannot be read gives none). */
async function systemsOfRuns(paths: ReadonlyMap<string, string>): Promise<string[]> {
  const ids = new Set<string>();
  for (const path of paths.values()) {
    const text = await readFile(join(path, RUN_FILE_NAME.manifest), 'utf8').catch(() => '{}');
    try {
      const manifest = JSON.parse(text) as { systems?: { id?: unknown }[] };
      for (const system of manifest.systems ?? [])
        if (typeof system.id === 'string') ids.add(system.id);
    } catch {
      // a damaged manifest: its run's page says so; the form just offers no system of it
    }
  }
  return [...ids];
}

/** The page of a folder of runs: one link per run, styled like the viewer. */
function runListPage(dir: string, runs: readonly string[], systems: readonly string[]): string {
  const items = runs
    .map(
      (r) =>
        `<li><a data-testid="run-link" href="run/${encodeURIComponent(r)}/">${escapeHtml(r)}</a></li>`,
    )
    .join('');
  return `<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>chi view</title><style>${VIEW_STYLE}</style></head><body><main><h1>chi view</h1><p>${escapeHtml(dir)}: ${runs.length} runs or releases.</p><ul class="runs">${items}</ul>${runs.length > 0 ? compareForm(runs, systems) : ''}</main></body></html>\n`;
}

/** Answers `/` and `/api/study` of a study (false for any other path). */
async function answerStudy(
  study: ViewStudySource,
  path: string,
  runs: ReadonlyMap<string, string>,
  response: ServerResponse,
): Promise<boolean> {
  if (path === '/api/study') {
    send(response, 200, 'application/json', JSON.stringify(await study.study()));
    return true;
  }
  if (path !== '/' && path !== '/index.html') return false;
  const names = [...runs.keys()];
  const tail = names.length > 0 ? compareForm(names, await systemsOfRuns(runs)) : '';
  const html = studyPage(await study.study(), { ...SERVED_STUDY_LINKS, tail });
  send(response, 200, 'text/html; charset=utf-8', html);
  return true;
}

/** The HTTP status of an error answering an API call, and its one-line message. */
function errorAnswer(error: unknown): { status: number; message: string } {
  const message = (error instanceof Error ? error.message : String(error)).replace(/\n\s*/g, ' ');
  if (InvalidArgumentError.isInstance(error)) return { status: 400, message };
  return { status: 500, message };
}

/** Listens on `host`:`port` (0: a free one) and returns the running viewer. */
async function listen(server: Server, host: string, port: number): Promise<ViewServer> {
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => done());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}/`,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/**
 * Serves a release through its view kind: the kind answers every `GET` whose path is safe
 * ({@link viewPathSegments}; any other is a 400), read from the release on request.
 */
async function startKindServer(
  viewed: ViewedRelease,
  host: string,
  port: number,
): Promise<ViewServer> {
  const { kind, release } = viewed;
  await kind.open?.(release);
  const server = createServer((request, response) => {
    if (request.method !== 'GET') return send(response, 405, 'text/plain', 'GET only');
    const path = viewPathSegments(new URL(request.url ?? '/', 'http://localhost').pathname);
    if (path === null) return send(response, 400, 'text/plain', 'bad path');
    kind.answer(release, path).then(
      (page) => send(response, page.status, page.type, page.body),
      (error: unknown) =>
        send(response, 500, 'text/plain; charset=utf-8', errorAnswer(error).message),
    );
  });
  return { ...(await listen(server, host, port)), viewed };
}

/**
 * Serves the viewer for a run folder or a release on loopback: `/` the page, `/api/<name>` the
 * calls of `answerViewApi` (a summary for the first screen, a page of worlds, one world's
 * items, one item, one request, one notebook), each read from the run when asked for, never the
 * whole run, and `/compare` two of its systems paired by world. For a folder of runs, `/` lists
 * them, `/compare` pairs two of them, and each is served under `/run/<name>/`. For a study
 * (`study`), `/` is the study page and `/api/study` its data, and its sessions are the runs. For
 * a release of one of `kinds` (or a run folder holding one), that kind's pages ({@link ViewKind}).
 */
export async function startViewServer(options: ViewServerOptions): Promise<ViewServer> {
  const dir = resolve(options.dir);
  const host = options.host ?? '127.0.0.1';
  if (!LOOPBACK.has(host))
    throw new InvalidArgumentError(
      'host',
      `expected a loopback address (127.0.0.1, ::1, localhost), found ${JSON.stringify(host)}`,
    );
  const study = options.study;
  const viewed =
    study === undefined && options.runs === undefined
      ? await viewKindOf(dir, options.kinds ?? [])
      : null;
  if (viewed !== null) return await startKindServer(viewed, host, options.port ?? 0);
  const sessions = () => studyRuns(study?.runs() ?? []);
  const listed = study === undefined ? await listedRuns(dir, options.runs) : await sessions();
  const single = listed === null && (await isRunFolder(dir));
  let paths = listed ?? (single ? new Map<string, string>() : await childRuns(dir));
  if (!single && study === undefined && paths.size === 0) await assertRunFolder(dir); // throws, naming what is missing
  const opened = new Map<string, Promise<ViewRun>>();
  const page = viewPage('');
  /** Answers a path below one run's root (`/`, `/api/<name>`). */
  const runAnswer = async (runDir: string, url: URL, path: string, response: ServerResponse) => {
    // two systems of this run, paired by world (`compare?sa=..&sb=..`, the summary's form)
    const oneRun = { dir: runDir, single: true, runs: new Map<string, string>() };
    if (await answerCompare(path, url, oneRun, response, send, VIEW_STYLE)) return;
    if (path === '/' || path === '/index.html')
      return send(response, 200, 'text/html; charset=utf-8', page);
    const api = /^\/api\/([a-z]+)$/.exec(path);
    if (api === null) return send(response, 404, 'text/plain', 'not found');
    let run = opened.get(runDir);
    if (run === undefined) {
      run = openViewRun(runDir);
      opened.set(runDir, run);
      run.catch(() => opened.delete(runDir)); // a run being created: open it again next time
    }
    try {
      const value = await answerViewApi(await run, api[1] as string, url.searchParams);
      if (value === undefined) return send(response, 404, 'text/plain', 'not found');
      return send(response, 200, 'application/json', JSON.stringify(value));
    } catch (error) {
      const { status, message } = errorAnswer(error);
      return send(response, status, 'text/plain; charset=utf-8', message);
    }
  };
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const path = url.pathname;
    const answer = async (): Promise<void> => {
      if (request.method !== 'GET') return send(response, 405, 'text/plain', 'GET only');
      if (single) return runAnswer(dir, url, path, response);
      if (study !== undefined) {
        paths = await sessions(); // a session that finished since shows on reload
        if (await answerStudy(study, path, paths, response)) return;
      }
      const runs = [...paths.keys()];
      if (await answerCompare(path, url, { dir, single, runs: paths }, response, send, VIEW_STYLE))
        return;
      if (path === '/' || path === '/index.html')
        return send(
          response,
          200,
          'text/html; charset=utf-8',
          runListPage(dir, runs, await systemsOfRuns(paths)),
        );
      const match = /^\/run\/([^/]+)(\/.*)$/.exec(path);
      const name = match === null ? undefined : decodeURIComponent(match[1] as string);
      if (match === null || name === undefined || !runs.includes(name))
        return send(response, 404, 'text/plain', 'not found');
      return runAnswer(paths.get(name) ?? join(dir, name), url, match[2] as string, response);
    };
    answer().catch((error: unknown) =>
      send(response, 500, 'text/plain', error instanceof Error ? error.message : String(error)),
    );
  });
  return await listen(server, host, options.port ?? 0);
}
