import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { evidenceBanner } from '@chi/analysis';
import { RUN_FILE_NAME, runFolderPaths } from '@chi/run/internal';
import { type EvidenceClass, InvalidArgumentError } from '@chi/spec';
import { type BootstrapEstimate, clusterBootstrap } from '@chi/stats';
import { canonicalJson } from '../canonical-json';
import { parseCsv } from '../release/csv';

/**
 * `chi view`'s comparison of two runs (or two systems), paired by world: for every world seed both
 * sides have, each side's per-world value of every headline quantity the two share (the world's
 * own Q_M at each notebook load, its own EIMC at each tau, its behavior indicators R, C, A, I),
 * the paired difference B − A, and the mean difference with a cluster-bootstrap interval over the
 * paired worlds (`@chi/stats` `clusterBootstrap`). It reads each side's `manifest.json` and its
 * release's two per-world CSV files (`chart-data/per-world-memory.csv`,
 * `chart-data/per-world-behavior.csv`), never the run's records or its whole chart data.
 */

/** Bootstrap seed of every comparison: fixed, so the same two runs always give the same page. */
export const COMPARE_SEED = 20260937;

/** One side of a comparison: a run folder or release, and one of its systems. */
export interface CompareSide {
  /** What the page calls it (the run's folder name). */
  readonly label: string;
  readonly dir: string;
  /** A system id of the run; default the first system B's run also has. */
  readonly system?: string;
}

/** One quantity compared world by world. */
export interface CompareMetric {
  /** e.g. `Q_M N = 32`, `EIMC τ 0.8 (world's own)`, `behavior A`. */
  readonly name: string;
  /** One row per paired world where both sides have a value, ascending seed. */
  readonly worlds: readonly {
    readonly worldSeed: number;
    readonly a: number;
    readonly b: number;
    readonly difference: number;
  }[];
  /** Mean of B − A over those worlds, with its interval (null below two worlds). */
  readonly meanDifference: BootstrapEstimate;
}

/** The comparison `api/compare` answers and `/compare` draws. */
export interface ViewComparison {
  readonly kind: 'chi-view-comparison';
  /** The evidence banner of the two compared systems (scripted baselines), or null if both live. */
  readonly banner: string | null;
  readonly a: { readonly label: string; readonly system: string; readonly model: string };
  readonly b: { readonly label: string; readonly system: string; readonly model: string };
  /** World seeds both runs planned, ascending; only these are paired. */
  readonly pairedWorlds: readonly number[];
  /** Seeds only one side planned (not compared). */
  readonly unpairedWorlds: { readonly a: number; readonly b: number };
  /** How the two differ besides their data: models and manifest settings, one sentence each. */
  readonly differences: readonly string[];
  readonly metrics: readonly CompareMetric[];
}

interface ManifestFacts {
  readonly worldSeeds: readonly number[];
  readonly systems: readonly {
    readonly id: string;
    readonly model: string;
    readonly evidenceClass: EvidenceClass;
  }[];
  readonly analysis: { readonly taus: readonly number[] };
  readonly evidenceClass: string;
  readonly raw: Readonly<Record<string, unknown>>;
}

async function readManifest(dir: string, field: string): Promise<ManifestFacts> {
  const path = join(dir, RUN_FILE_NAME.manifest);
  const text = await readFile(path, 'utf8').catch(() => null);
  if (text === null)
    throw new InvalidArgumentError(field, `no ${RUN_FILE_NAME.manifest} in ${dir}`);
  const raw = JSON.parse(text) as Record<string, unknown>;
  return { ...(raw as unknown as Omit<ManifestFacts, 'raw'>), raw };
}

/** The release's per-world CSV rows as records, from the release or the run folder's release/. */
async function perWorldRows(dir: string, file: string, field: string) {
  for (const root of [dir, runFolderPaths(dir).releaseDir]) {
    const text = await readFile(join(root, 'chart-data', file), 'utf8').catch(() => null);
    if (text === null) continue;
    const [header, ...rows] = parseCsv(text);
    return rows
      .filter((r) => r.length === header?.length)
      .map((r) => Object.fromEntries((header ?? []).map((h, i) => [h, r[i] ?? ''])));
  }
  throw new InvalidArgumentError(
    field,
    `${dir} has no release (chart-data/${file}): compare released runs (chi score --release)`,
  );
}

type Rows = Awaited<ReturnType<typeof perWorldRows>>;

/** Per world, each quantity's value for one system (complete blocks only). */
function worldValues(memory: Rows, behavior: Rows, system: string, taus: readonly number[]) {
  const values = new Map<string, Map<number, number>>();
  const put = (name: string, seed: number, value: number) => {
    if (!Number.isFinite(value)) return;
    const byWorld = values.get(name) ?? new Map<number, number>();
    byWorld.set(seed, value);
    values.set(name, byWorld);
  };
  const curve = new Map<number, [number, number][]>();
  for (const row of memory) {
    if (row.systemId !== system || row.condition !== 'notebook' || row.blockComplete !== 'true')
      continue;
    if (row.qualityScore === '') continue;
    const seed = Number(row.worldSeed);
    const load = Number(row.load);
    put(`Q_M N = ${load}`, seed, Number(row.qualityScore));
    curve.set(seed, [...(curve.get(seed) ?? []), [load, Number(row.qualityScore)]]);
  }
  for (const [seed, points] of curve)
    for (const tau of taus) {
      const passing = points.filter(([, q]) => q >= tau).map(([load]) => load);
      put(
        `EIMC τ ${tau} (world's own; 0 = none)`,
        seed,
        passing.length === 0 ? 0 : Math.max(...passing),
      );
    }
  for (const row of behavior) {
    if (row.systemId !== system || row.blockComplete !== 'true') continue;
    for (const indicator of ['R', 'C', 'A', 'I'])
      if ((row[indicator] ?? '') !== '')
        put(`behavior ${indicator}`, Number(row.worldSeed), Number(row[indicator]));
  }
  return values;
}

/** Manifest settings that differ (besides worlds, time and plan), and system models. */
function differencesOf(
  a: ManifestFacts,
  b: ManifestFacts,
  sa: { id: string; model: string },
  sb: { id: string; model: string },
): string[] {
  const out: string[] = [];
  if (sa.model !== sb.model) out.push(`models differ: A runs ${sa.model}, B runs ${sb.model}`);
  if (a.evidenceClass !== b.evidenceClass)
    out.push(`evidence differs: A is ${a.evidenceClass}, B is ${b.evidenceClass}`);
  const ignored = new Set([
    'createdAt',
    'worldSeeds',
    'replicates',
    'planSha256',
    'systems',
    'concurrency',
  ]);
  const keys = [...new Set([...Object.keys(a.raw), ...Object.keys(b.raw)])].sort();
  const settings = keys.filter(
    (k) => !ignored.has(k) && canonicalJson(a.raw[k] ?? null) !== canonicalJson(b.raw[k] ?? null),
  );
  if (settings.length > 0) out.push(`configurations differ in: ${settings.join(', ')}`);
  return out;
}

function pickSystem(
  m: ManifestFacts,
  wanted: string | undefined,
  other: ManifestFacts,
  field: string,
) {
  const id = wanted ?? m.systems.find((s) => other.systems.some((o) => o.id === s.id))?.id;
  const system = m.systems.find((s) => s.id === id);
  if (system === undefined)
    throw new InvalidArgumentError(
      field,
      `${wanted === undefined ? 'the runs share no system; name one' : `no system ${JSON.stringify(wanted)} in the run`} (systems: ${m.systems.map((s) => s.id).join(', ')})`,
    );
  return system;
}

/** One metric's paired rows and its mean difference with the bootstrap interval. */
function pairedMetric(
  name: string,
  a: ReadonlyMap<number, number>,
  b: ReadonlyMap<number, number>,
  seeds: readonly number[],
): CompareMetric {
  const worlds = seeds.flatMap((worldSeed) => {
    const va = a.get(worldSeed);
    const vb = b.get(worldSeed);
    return va === undefined || vb === undefined
      ? []
      : [{ worldSeed, a: va, b: vb, difference: vb - va }];
  });
  const meanDifference = clusterBootstrap({
    clusters: worlds.map((w) => w.difference),
    statistic: (sample: readonly number[]) =>
      sample.length === 0 ? null : sample.reduce((s, d) => s + d, 0) / sample.length,
    seed: COMPARE_SEED,
  });
  return { name, worlds, meanDifference };
}

/**
 * Compares side B with side A world by world. Throws `InvalidArgumentError` (field `a` or `b`)
 * for a side without a manifest or a release, an unknown system, or two runs with no world seed
 * in common (nothing to pair).
 */
export async function compareRuns(a: CompareSide, b: CompareSide): Promise<ViewComparison> {
  const [ma, mb] = await Promise.all([readManifest(a.dir, 'a'), readManifest(b.dir, 'b')]);
  const seedsB = new Set(mb.worldSeeds);
  const paired = [...new Set(ma.worldSeeds.filter((s) => seedsB.has(s)))].sort((x, y) => x - y);
  if (paired.length === 0)
    throw new InvalidArgumentError(
      'b',
      `${b.label} shares no world seed with ${a.label}: runs can be compared only world by world (make them with the same --seed)`,
    );
  const sa = pickSystem(ma, a.system, mb, 'a');
  const sb = pickSystem(mb, b.system ?? a.system ?? sa.id, ma, 'b');
  const [memA, behA, memB, behB] = await Promise.all([
    perWorldRows(a.dir, 'per-world-memory.csv', 'a'),
    perWorldRows(a.dir, 'per-world-behavior.csv', 'a'),
    perWorldRows(b.dir, 'per-world-memory.csv', 'b'),
    perWorldRows(b.dir, 'per-world-behavior.csv', 'b'),
  ]);
  const taus = ma.analysis.taus.filter((t) => mb.analysis.taus.includes(t));
  const valuesA = worldValues(memA, behA, sa.id, taus);
  const valuesB = worldValues(memB, behB, sb.id, taus);
  const metrics = [...valuesA.keys()]
    .filter((name) => valuesB.has(name))
    .map((name) =>
      pairedMetric(name, valuesA.get(name) ?? new Map(), valuesB.get(name) ?? new Map(), paired),
    )
    .filter((m) => m.worlds.length > 0);
  return {
    kind: 'chi-view-comparison',
    banner: evidenceBanner([sa.evidenceClass, sb.evidenceClass]),
    a: { label: a.label, system: sa.id, model: sa.model },
    b: { label: b.label, system: sb.id, model: sb.model },
    pairedWorlds: paired,
    unpairedWorlds: {
      a: ma.worldSeeds.filter((s) => !seedsB.has(s)).length,
      b: mb.worldSeeds.filter((s) => !ma.worldSeeds.includes(s)).length,
    },
    // two systems of one run differ by design: nothing else can
    differences: resolve(a.dir) === resolve(b.dir) ? [] : differencesOf(ma, mb, sa, sb),
    metrics,
  };
}
