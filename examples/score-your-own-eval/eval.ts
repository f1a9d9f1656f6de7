/**
 * A memory eval written without the CHI harness: no runner, no prompts of ours, no run folder.
 * A plain loop over a JSONL file in which each line holds the questions one world asked and the
 * reply it got. Only three packages are imported:
 * - `@chi/worlds` regenerates each world from its seed, which gives the hidden answer key (the
 *   file never needs to store it);
 * - `@chi/scoring` turns a raw reply into per-stratum factors, Q_M, the capacity curve and EIMC;
 * - `@chi/stats` resamples whole worlds for pointwise 95% intervals.
 */
import { readFileSync } from 'node:fs';
import {
  capacityCurve,
  eimc,
  eimcSensitivity,
  type LoadScores,
  meanWithinWorldCurve,
  parseProbeReply,
  scoreMemoryProbes,
} from '@chi/scoring';
import { clusterBootstrap } from '@chi/stats';
import { generateMemoryWorld } from '@chi/worlds';

/** One line of the eval file. */
export interface EvalLine {
  /** `fixture` for made-up replies, `live_model` for a model's: printed with every number. */
  readonly evidenceClass: string;
  readonly world: number;
  readonly seed: number;
  readonly load: number;
  /** What was asked: the blind probes, exactly as sent. */
  readonly questions: readonly { id: string; key: string; asOf: string | null }[];
  /** The raw reply text, whatever its shape. */
  readonly reply: string;
}

type MemoryScore = ReturnType<typeof scoreMemoryProbes>;

/** One world (the resampling unit) with its score at every load. */
interface WorldScores {
  readonly world: number;
  readonly byLoad: Map<number, MemoryScore>;
}

/** Everything the eval reports. */
export interface EvalResult {
  readonly evidenceClasses: readonly string[];
  readonly worlds: number;
  readonly loads: readonly number[];
  readonly perLoad: readonly LoadScores[];
  readonly curve: ReturnType<typeof capacityCurve>;
  readonly withinWorld: ReturnType<typeof meanWithinWorldCurve>;
  readonly eimc: ReturnType<typeof eimc>;
  readonly sensitivity: ReturnType<typeof eimcSensitivity>;
  readonly intervals: ReturnType<typeof bootstrapIntervals>;
  readonly answerCounts: Readonly<Record<string, number>>;
}

export const ANALYSIS_SEED = 20260902;
export const TAU = 0.8;

function readLines(path: string): EvalLine[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, index) => {
      try {
        return JSON.parse(line) as EvalLine;
      } catch (error) {
        throw new Error(`${path} line ${index + 1}: not JSON (${(error as Error).message})`);
      }
    });
}

/** Q_M of world-mean factors at every load, and EIMC, for one (re)sample of worlds. */
function curveStatistic(
  sample: readonly WorldScores[],
  loads: readonly number[],
): Record<string, number | null> {
  const curve = capacityCurve(
    loads.map((load) => ({
      load,
      worlds: sample.map((world) => world.byLoad.get(load) as MemoryScore),
    })),
  );
  const out: Record<string, number | null> = {};
  for (const point of curve) out[`Q_M N=${point.load}`] = point.qualityScore;
  out[`EIMC_${TAU}`] = eimc(curve, TAU).value; // null (never 0) when no load passes
  return out;
}

function bootstrapIntervals(worlds: readonly WorldScores[], loads: readonly number[]) {
  return clusterBootstrap({
    clusters: worlds,
    seed: ANALYSIS_SEED,
    statistic: (sample) => curveStatistic(sample, loads),
    // EIMC lives on the tested grid: read its quantiles without interpolation.
    quantile: { [`EIMC_${TAU}`]: 'inverted_cdf' as const },
  });
}

/** Reads the file, scores every reply and computes the curve, EIMC and intervals. */
export function runEval(path: string): EvalResult {
  const worlds = new Map<number, WorldScores>();
  const evidence = new Set<string>();
  const answerCounts: Record<string, number> = {};
  for (const line of readLines(path)) {
    evidence.add(line.evidenceClass);
    // The answer key is not in the file: the seed regenerates the world, questions and all.
    const world = generateMemoryWorld({ seed: line.seed, load: line.load });
    const asked = JSON.stringify(line.questions);
    if (asked !== JSON.stringify(world.probes)) {
      throw new Error(
        `world ${line.world}, load ${line.load}: the questions in the file are not the ones seed ${line.seed} generates (another @chi/worlds version?)`,
      );
    }
    const parsed = parseProbeReply(
      line.reply,
      line.questions.map((question) => question.id),
    );
    for (const answer of parsed.answers)
      answerCounts[answer.status] = (answerCounts[answer.status] ?? 0) + 1;
    const entry = worlds.get(line.world) ?? { world: line.world, byLoad: new Map() };
    entry.byLoad.set(line.load, scoreMemoryProbes(world.answerKey, parsed));
    worlds.set(line.world, entry);
  }

  const clusters = [...worlds.values()].sort((a, b) => a.world - b.world);
  const loads = [...new Set(clusters.flatMap((world) => [...world.byLoad.keys()]))].sort(
    (a, b) => a - b,
  );
  for (const world of clusters) {
    const missing = loads.filter((load) => !world.byLoad.has(load));
    if (missing.length > 0)
      throw new Error(`world ${world.world} has no reply at load ${missing.join(', ')}`);
  }
  const perLoad: LoadScores[] = loads.map((load) => ({
    load,
    worlds: clusters.map((world) => world.byLoad.get(load) as MemoryScore),
  }));
  const curve = capacityCurve(perLoad);
  return {
    evidenceClasses: [...evidence].sort(),
    worlds: clusters.length,
    loads,
    perLoad,
    curve,
    withinWorld: meanWithinWorldCurve(perLoad),
    eimc: eimc(curve, TAU),
    sensitivity: eimcSensitivity(curve),
    intervals: bootstrapIntervals(clusters, loads),
    answerCounts,
  };
}

const fixed = (value: number | null, digits = 3): string =>
  value === null ? 'null' : value.toFixed(digits);

/** The report, with the evidence class on top and beside the headline numbers. */
export function formatReport(result: EvalResult): string {
  const label = result.evidenceClasses.join('+').toUpperCase();
  const lines = [
    `Evidence class: ${label}${result.evidenceClasses.includes('fixture') ? ' (made-up replies: these numbers describe the fixture rule, not any model)' : ''}`,
    `${result.worlds} worlds x loads ${result.loads.join(', ')}; ${result.worlds < 10 ? 'few worlds: every comparison is exploratory' : ''}`,
    `answers by status: ${Object.entries(result.answerCounts)
      .map(([status, count]) => `${status} ${count}`)
      .join(', ')}`,
    '',
    'load     r      t      s      u      i    1-f   Q_M of mean factors [95% pointwise]   mean within-world Q_M (a different quantity)',
  ];
  for (const point of result.curve) {
    const f = point.factors;
    const interval = result.intervals[`Q_M N=${point.load}`];
    const within = result.withinWorld.find((p) => p.load === point.load);
    const range =
      interval?.interval === null || interval === undefined
        ? `no interval (${interval?.intervalOmittedReason ?? 'missing'})`
        : `[${fixed(interval.interval.lower)}, ${fixed(interval.interval.upper)}]`;
    lines.push(
      `${String(point.load).padStart(4)}  ${[f.r, f.t, f.s, f.u, f.i, f.oneMinusF].map((x) => fixed(x)).join('  ')}   ${fixed(point.qualityScore)} ${range.padEnd(26)}  ${fixed(within?.meanWithinWorldQualityScore ?? null)}`,
    );
  }
  for (const load of result.perLoad) {
    const lures = load.worlds.map((world) => world.lures);
    const affirmative = lures.reduce((sum, l) => sum + l.unsupportedAffirmative, 0);
    const invalid = lures.reduce((sum, l) => sum + l.invalid, 0);
    const total = lures.reduce((sum, l) => sum + l.total, 0);
    lines.push(
      `  N=${load.load} lures: unsupported affirmative ${affirmative}/${total}, invalid ${invalid}/${total}`,
    );
  }
  const e = result.eimc;
  const eInterval = result.intervals[`EIMC_${TAU}`];
  lines.push(
    '',
    `EIMC_${e.tau} = ${e.value ?? 'none'} (${e.status}${e.status === 'lower_bound' ? ': the largest tested load passes, true capacity may be higher' : ''}${e.status === 'no_passing_load' ? ': no tested load passes; this is not zero' : ''})`,
    `  95% pointwise interval over worlds: ${eInterval?.interval ? `[${eInterval.interval.lower}, ${eInterval.interval.upper}]` : 'none'}, replicates where no load passed: ${eInterval?.undefinedReplicates ?? 0} of ${eInterval?.resamples ?? 0}`,
    `  nonmonotone: ${e.nonmonotone}, sustained prefix: ${e.sustainedPrefix ?? 'none'}`,
    `  sensitivity: ${result.sensitivity.map((s) => `tau ${s.tau} -> ${s.value ?? 'none'} (${s.status})`).join(', ')}`,
  );
  return lines.join('\n');
}
