import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { InvalidArgumentError } from '@chi/spec';
import { viewApiPath } from './view-api';
import { viewPage } from './view-app';
import { writeSystemComparePages } from './view-compare-bundle';
import { type ViewedRelease, type ViewKind, viewKindOf, viewPathSegments } from './view-kind';
import { ITEM_PAGE, openViewRun, type ViewItemPage, type ViewRun, WORLD_PAGE } from './view-run';
import { assertRunFolder } from './view-server';

/** The answers of a bundle, by canonical API path ({@link viewApiPath}). */
type Answers = Record<string, unknown>;

/** Every page of a cell's items (with `reason` when given), recorded under their paths. */
async function itemPages(
  run: ViewRun,
  answers: Answers,
  params: { system: string; world: number; cell: string; reason?: string },
): Promise<ViewItemPage[]> {
  const pages: ViewItemPage[] = [];
  for (let start = 0; ; start += ITEM_PAGE) {
    const page = await run.items({
      systemId: params.system,
      world: params.world,
      cellPath: params.cell,
      ...(params.reason === undefined ? {} : { reason: params.reason }),
      start,
    });
    answers[viewApiPath('items', { ...params, start })] = page;
    pages.push(page);
    if (start + ITEM_PAGE >= page.total) return pages;
  }
}

/** Records one cell: its items (by reason too), each item, its requests and notebooks. */
async function bundleCell(
  run: ViewRun,
  answers: Answers,
  system: string,
  world: number,
  cell: string,
) {
  const pages = await itemPages(run, answers, { system, world, cell });
  for (const reason of Object.keys(pages[0]?.reasons ?? {}))
    await itemPages(run, answers, { system, world, cell, reason });
  for (const item of pages.flatMap((page) => page.items)) {
    answers[viewApiPath('item', { system, world, key: item.key })] = await run.item(
      system,
      world,
      item.key,
    );
    const request = item.requestId;
    if (request !== null && answers[viewApiPath('request', { id: request })] === undefined)
      answers[viewApiPath('request', { id: request })] = await run.request(request);
    const notebook = item.notebookPath;
    if (notebook !== null && answers[viewApiPath('notebook', { path: notebook })] === undefined)
      answers[viewApiPath('notebook', { path: notebook })] = await run.notebook(notebook);
  }
}

/**
 * Writes a static copy of the viewer for a run folder or a release: `index.html` and `data.js`
 * (`window.CHI_VIEW_DATA`: every API call the page can make, answered now, keyed by its path),
 * and `compare-<i>-<j>.html` (two systems' headline quantities paired by world, as the server's
 * `/compare` page), which open from the file system with no server. Progress is the snapshot
 * taken now. For a release of one of `options.kinds` (or a run folder holding one), the kind's
 * bundle instead (`writeKindBundle`). Returns the files written, `index.html` first.
 */
export async function writeViewBundle(
  dir: string,
  outDir: string,
  options: { readonly kinds?: readonly ViewKind[] } = {},
): Promise<string[]> {
  const source = resolve(dir);
  const viewed = await viewKindOf(source, options.kinds ?? []);
  if (viewed !== null) return await writeKindBundle(viewed, outDir);
  await assertRunFolder(source);
  const run = await openViewRun(source);
  const summary = await run.summary();
  const answers: Answers = {
    [viewApiPath('summary')]: summary,
    [viewApiPath('progress')]: await run.progress(),
  };
  for (const { id: system } of summary.systems)
    for (let offset = 0; offset < summary.worlds.length; offset += WORLD_PAGE) {
      const page = await run.worlds(system, offset, WORLD_PAGE);
      answers[viewApiPath('worlds', { system, offset, limit: WORLD_PAGE })] = page;
      for (const row of page.rows)
        for (const { cellPath } of row.cells)
          await bundleCell(run, answers, system, row.worldSeed, cellPath);
    }
  const out = resolve(outDir);
  await mkdir(out, { recursive: true });
  // the headline comparison of two systems, paired by world: one static page per ordered pair
  Object.assign(answers, await writeSystemComparePages(source, out));
  // `</` cannot end the script early: JSON never needs a raw `</`
  const json = JSON.stringify(answers).replace(/<\//g, '<\\/');
  await writeFile(join(out, 'data.js'), `window.CHI_VIEW_DATA = ${json};\n`);
  await writeFile(join(out, 'index.html'), viewPage('<script src="data.js"></script>'));
  return [join(out, 'index.html'), join(out, 'data.js')];
}

/**
 * Writes a view kind's bundle of its release into `outDir`: each of its files, `index.html`
 * first; a path that would leave `outDir` (a segment `.` or `..`, a backslash) is refused.
 */
async function writeKindBundle(viewed: ViewedRelease, outDir: string): Promise<string[]> {
  const files = await viewed.kind.bundle(viewed.release);
  const out = resolve(outDir);
  const paths = [...files.keys()].sort((a, b) =>
    a === 'index.html' ? -1 : b === 'index.html' ? 1 : 0,
  );
  if (paths[0] !== 'index.html')
    throw new InvalidArgumentError('bundle', `the ${viewed.kind.name} bundle has no index.html`);
  const written: string[] = [];
  for (const path of paths) {
    const segments = viewPathSegments(`/${path}`);
    if (segments === null || segments.length === 0 || segments.join('/') !== path)
      throw new InvalidArgumentError('bundle', `unsafe bundle path ${JSON.stringify(path)}`);
    const target = join(out, ...segments);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, files.get(path) ?? '');
    written.push(target);
  }
  return written;
}
