import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseCsv } from '@chi/report/internal';
import { UsageError } from '../cli/usage-error';
import { binomialWorstCase, type QuantitySpread, type VarianceModel } from './plan-precision';

/**
 * The checkpoint whose excess divergence the plan sizes: the previous release's preregistered
 * primary checkpoint (`chart-data.json`, `run.analysis.primaryCheckpoint`), the one its report
 * headlines; 3 for a release written before the checkpoint was frozen in the manifest.
 */
async function primaryCheckpointOf(dir: string): Promise<string> {
  const path = join(dir, 'chart-data', 'chart-data.json');
  let data: unknown;
  try {
    data = JSON.parse(await readFile(path, 'utf8'));
  } catch {
    throw new UsageError(`--plan-from: ${path} is missing or not JSON; give a release folder`);
  }
  const analysis = (data as { run?: { analysis?: { primaryCheckpoint?: unknown } } }).run?.analysis;
  const checkpoint = analysis?.primaryCheckpoint;
  return String(typeof checkpoint === 'number' ? checkpoint : 3);
}
const BEHAVIOR_COLUMNS = ['R', 'C', 'A', 'I', 'frameInducedChangeRate'] as const;

/** One per-world value: a system's value of one cell in one world. */
interface WorldValue {
  readonly cell: string;
  readonly systemId: string;
  readonly worldSeed: string;
  readonly value: number;
}

/** Sample standard deviation (n − 1), or null below two values. */
export function sampleSd(values: readonly number[]): number | null {
  if (values.length < 2) return null;
  const mean = values.reduce((s, v) => s + v, 0) / values.length;
  const squares = values.reduce((s, v) => s + (v - mean) ** 2, 0);
  return Math.sqrt(squares / (values.length - 1));
}

function maxOf(values: readonly (number | null)[]): number | null {
  const defined = values.filter((v): v is number => v !== null);
  return defined.length === 0 ? null : Math.max(...defined);
}

/**
 * The largest world-level SD over the cells (a system's value of one cell across worlds) and the
 * largest SD of the per-world difference between two systems in one cell (over the worlds both
 * have): the spreads a new run of the same systems should plan for.
 */
export function spreadsOf(values: readonly WorldValue[]): {
  sd: number | null;
  sdDifference: number | null;
} {
  const byCell = new Map<string, Map<string, Map<string, number>>>();
  for (const v of values) {
    const systems = byCell.get(v.cell) ?? new Map<string, Map<string, number>>();
    const worlds = systems.get(v.systemId) ?? new Map<string, number>();
    worlds.set(v.worldSeed, v.value);
    systems.set(v.systemId, worlds);
    byCell.set(v.cell, systems);
  }
  const sds: (number | null)[] = [];
  const differences: (number | null)[] = [];
  for (const systems of byCell.values()) {
    const list = [...systems.values()];
    for (const worlds of list) sds.push(sampleSd([...worlds.values()]));
    list.forEach((a, i) => {
      for (const b of list.slice(i + 1)) {
        const paired = [...a.entries()].filter(([seed]) => b.has(seed));
        differences.push(sampleSd(paired.map(([seed, x]) => x - (b.get(seed) as number))));
      }
    });
  }
  return { sd: maxOf(sds), sdDifference: maxOf(differences) };
}

async function csvRows(dir: string, name: string): Promise<Record<string, string>[]> {
  const path = join(dir, 'chart-data', name);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new UsageError(
      `--plan-from: ${path} is missing; give a release folder (its chart-data/ holds ${name})`,
    );
  }
  const [header = [], ...rows] = parseCsv(text);
  return rows
    .filter((row) => row.length === header.length)
    .map((row) => Object.fromEntries(header.map((column, i) => [column, row[i] ?? ''])));
}

function worldValue(cell: string, row: Record<string, string>, column: string): WorldValue[] {
  const text = row[column] ?? '';
  const value = Number(text);
  if (text === '' || !Number.isFinite(value) || row.blockComplete !== 'true') return [];
  return [{ cell, systemId: row.systemId ?? '', worldSeed: row.worldSeed ?? '', value }];
}

/**
 * The variance model of `--plan-from DIR`: each headline number's world-level SD and paired-
 * difference SD from a previous release's per-world values (complete blocks only; the largest
 * over systems and cells). A number the release cannot estimate (fewer than two worlds, or
 * absent) keeps the binomial worst case, and the source says which.
 */
export async function varianceModelFromRelease(dir: string): Promise<VarianceModel> {
  const memory = (await csvRows(dir, 'per-world-memory.csv'))
    .filter((row) => row.condition === 'notebook')
    .flatMap((row) => worldValue(`N=${row.load}`, row, 'qualityScore'));
  const primary = await primaryCheckpointOf(dir);
  const history = (await csvRows(dir, 'per-world-history.csv'))
    .filter((row) => row.history === 'A' && row.checkpoint === primary)
    .filter((row) => row.inDistanceWorldSet === 'true')
    .flatMap((row) => worldValue('divergence', row, 'divergence'));
  const behavior = (await csvRows(dir, 'per-world-behavior.csv')).flatMap((row) =>
    BEHAVIOR_COLUMNS.flatMap((column) => worldValue(column, row, column)),
  );
  const worst = binomialWorstCase().quantities;
  const fallbacks: string[] = [];
  const quantities = [memory, history, behavior].map((values, index): QuantitySpread => {
    const fallback = worst[index] as QuantitySpread;
    const spread = spreadsOf(values);
    if (spread.sd === null || spread.sdDifference === null) {
      fallbacks.push(fallback.quantity);
      return fallback;
    }
    return { quantity: fallback.quantity, sd: spread.sd, sdDifference: spread.sdDifference };
  });
  const kept =
    fallbacks.length === 0 ? '' : `; binomial worst case kept for ${fallbacks.join(', ')}`;
  return {
    source: `per-world values of ${dir} (largest SD over systems and cells; complete blocks)${kept}`,
    quantities,
  };
}
