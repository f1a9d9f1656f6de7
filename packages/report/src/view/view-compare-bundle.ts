import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { RUN_FILE_NAME } from '@chi/run/internal';
import { InvalidArgumentError } from '@chi/spec';
import { BOOTSTRAP_DEFAULTS } from '@chi/stats';
import { viewApiPath } from './view-api';
import { VIEW_STYLE } from './view-app';
import { type CompareSide, compareRuns } from './view-compare';
import { comparisonPage } from './view-compare-page';
import { assertRunFolder } from './view-server';

/**
 * Static copies of `chi view`'s comparison pages (`/compare`), which open from the file system
 * with no server: the pages of a run's systems, two by two, inside its viewer bundle
 * (`chi view DIR --bundle OUT`), and the pages of two runs (`chi view RUN_A RUN_B --bundle OUT`).
 * Each page is the server's page, byte for byte but for its links.
 */

/** What a bundle records for one pair of systems under `api/comparepage?sa=..&sb=..`. */
export type ComparePageEntry = { readonly file: string } | { readonly refused: string };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

async function systemIds(dir: string): Promise<string[]> {
  const manifest = JSON.parse(await readFile(join(dir, RUN_FILE_NAME.manifest), 'utf8')) as {
    systems: { id: string }[];
  };
  return manifest.systems.map((s) => s.id);
}

/**
 * Writes `compare-<i>-<j>.html` into `out` for every ordered pair of the run's systems (B − A,
 * so both directions) and returns what the viewer's bundle records for each pair, keyed by its
 * API path. A run without a release has nothing to pair (the per-world values are the
 * release's): every pair then records the reason, and no page is written.
 */
export async function writeSystemComparePages(
  dir: string,
  out: string,
): Promise<Record<string, ComparePageEntry>> {
  const systems = await systemIds(dir);
  const label = basename(dir);
  const entries: Record<string, ComparePageEntry> = {};
  for (const [i, sa] of systems.entries())
    for (const [j, sb] of systems.entries()) {
      if (i === j) continue;
      const key = viewApiPath('comparepage', { sa, sb });
      try {
        const comparison = await compareRuns(
          { label, dir, system: sa },
          { label, dir, system: sb },
        );
        const file = `compare-${i}-${j}.html`;
        const html = comparisonPage(comparison, VIEW_STYLE, BOOTSTRAP_DEFAULTS.level, {
          back: 'index.html',
        });
        await writeFile(join(out, file), html);
        entries[key] = { file };
      } catch (error) {
        if (!InvalidArgumentError.isInstance(error)) throw error;
        entries[key] = { refused: error.message };
      }
    }
  return entries;
}

/** The pairs of a two-run bundle: the systems both runs have, else every system of A with every system of B. */
async function runPairs(a: string, b: string): Promise<[string, string][]> {
  const [systemsA, systemsB] = await Promise.all([systemIds(a), systemIds(b)]);
  const shared = systemsA.filter((id) => systemsB.includes(id));
  if (shared.length > 0) return shared.map((id) => [id, id]);
  return systemsA.flatMap((sa) => systemsB.map((sb): [string, string] => [sa, sb]));
}

/** The list of a two-run bundle's pages, the one shown marked. */
function pairNav(pairs: readonly [string, string][], shown: number): string {
  const items = pairs.map(([sa, sb], k) => {
    const text = escapeHtml(sa === sb ? sa : `${sa} vs ${sb}`);
    return k === shown
      ? `<li><strong>${text}</strong></li>`
      : `<li><a data-testid="compare-pair-link" href="${k === 0 ? 'index.html' : `compare-${k}.html`}">${text}</a></li>`;
  });
  return `<nav data-testid="compare-pairs"><p>Systems compared (${pairs.length}):</p><ul>${items.join('')}</ul></nav>`;
}

/**
 * `chi view RUN_A RUN_B --bundle OUT`: the comparison of two runs (folders or releases), paired by
 * world, as static pages: `index.html` compares the first system both runs have, and
 * `compare-<k>.html` each further one (two runs that share no system id: every system of A with
 * every system of B). Returns the files written, `index.html` first.
 *
 * @throws InvalidArgumentError naming a folder that holds no run (field `DIR`), and as
 *   `compareRuns` (field `a` or `b`): no release, or no world seed in common
 */
export async function writeCompareBundle(
  runA: string,
  runB: string,
  outDir: string,
): Promise<string[]> {
  const [a, b] = [resolve(runA), resolve(runB)];
  await assertRunFolder(a);
  await assertRunFolder(b);
  const pairs = await runPairs(a, b);
  const labels = [basename(a), basename(b) === basename(a) ? `${basename(b)}-2` : basename(b)];
  const pages: [string, string][] = [];
  for (const [k, [sa, sb]] of pairs.entries()) {
    const sides: [CompareSide, CompareSide] = [
      { label: labels[0] as string, dir: a, system: sa },
      { label: labels[1] as string, dir: b, system: sb },
    ];
    const comparison = await compareRuns(...sides);
    const html = comparisonPage(comparison, VIEW_STYLE, BOOTSTRAP_DEFAULTS.level, {
      back: null,
      nav: pairs.length > 1 ? pairNav(pairs, k) : '',
    });
    pages.push([k === 0 ? 'index.html' : `compare-${k}.html`, html]);
  }
  const out = resolve(outDir);
  await mkdir(out, { recursive: true });
  for (const [file, html] of pages) await writeFile(join(out, file), html);
  return pages.map(([file]) => join(out, file));
}
