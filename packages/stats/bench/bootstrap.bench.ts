/**
 * Benchmark of the fast path on the pilot-sized dataset, run with `pnpm --filter @chi/stats bench`
 * (`tsx bench/bootstrap.bench.ts`). Plain `performance.now()` around whole calls, many repetitions
 * after a warm-up, median reported: the median resists the odd GC pause or scheduler hiccup on a
 * shared 2-core machine better than the mean.
 *
 * Statistic: Q_M = (r * t * s * u * i * (1 - f))^(1/6) of world-mean factors for every system and
 * load, plus EIMC_0.8 per system (largest load with Q_M >= 0.8, undefined if none).
 */

import { meanVectorOverClusters } from '../src/cluster-means.js';
import { clusterBootstrap, packClusterVectors, weightedMeansBootstrap } from '../src/index.js';
import {
  createPilotStatistic,
  generatePilotRows,
  PILOT_SHAPE,
  type PilotShape,
  pilotStatisticNames,
  pilotWidth,
} from '../test/pilot-fixture.js';

const TARGET_MS = 20;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

function time(run: () => unknown, repetitions: number, warmup = 5): number {
  for (let i = 0; i < warmup; i++) run();
  const samples: number[] = [];
  for (let i = 0; i < repetitions; i++) {
    const start = performance.now();
    run();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

function fastRun(shape: PilotShape, resamples: number): () => unknown {
  const packed = packClusterVectors(generatePilotRows(shape, 2026));
  const names = pilotStatisticNames(shape);
  const statistic = createPilotStatistic(shape);
  return () => weightedMeansBootstrap({ ...packed, names, statistic, resamples, seed: 20260901 });
}

function generalRun(shape: PilotShape, resamples: number): () => unknown {
  const rows = generatePilotRows(shape, 2026);
  const names = pilotStatisticNames(shape);
  const statistic = createPilotStatistic(shape);
  const out = new Float64Array(names.length);
  return () =>
    clusterBootstrap({
      clusters: rows,
      resamples,
      seed: 20260901,
      statistic: (sample) => {
        out.fill(Number.NaN);
        statistic(
          meanVectorOverClusters(sample, (row) => row),
          out,
          // clusterBootstrap does not say which replicate; the pilot statistic ignores it
          -1,
        );
        return Object.fromEntries(
          names.map((name, i) => [name, Number.isNaN(out[i]) ? null : out[i]!]),
        );
      },
    });
}

const shape = PILOT_SHAPE;
const resamples = 2000;
const names = pilotStatisticNames(shape);
console.log(
  `dataset: ${shape.worlds} worlds x ${shape.systems} systems x ${shape.loads.length} loads x ${shape.factors} factors` +
    ` (row width ${pilotWidth(shape)}), ${resamples} resamples, ${names.length} statistics` +
    ` (${shape.systems * shape.loads.length} Q_M + ${shape.systems} EIMC_0.8)`,
);
console.log(`node ${process.version}, ${process.arch}`);

const fastMs = time(fastRun(shape, resamples), 101);
console.log(
  `weightedMeansBootstrap: median ${fastMs.toFixed(2)} ms per call, ${((fastMs / resamples) * 1000).toFixed(2)} ms per 1000 resamples` +
    ` (target < ${TARGET_MS} ms: ${fastMs < TARGET_MS ? 'met' : 'MISSED'})`,
);
const generalMs = time(generalRun(shape, resamples), 21, 2);
console.log(
  `clusterBootstrap (same statistic, general path): median ${generalMs.toFixed(2)} ms per call, ${((generalMs / resamples) * 1000).toFixed(2)} ms per 1000 resamples`,
);

console.log('\nscaling of the fast path (median ms): linear in resamples, affine in worlds');
console.log('worlds  resamples  median ms  us per (resample x world)');
// Fit us per replicate = a + b x worlds by least squares: `a` is the statistic and the interval
// summary, `b` the draws and weighted sums that scale with worlds.
const points: { worlds: number; resamples: number; ms: number }[] = [];
for (const worlds of [25, 50, 100]) {
  for (const count of [500, 1000, 2000, 4000]) {
    const ms = time(fastRun({ ...shape, worlds }, count), 31, 3);
    points.push({ worlds, resamples: count, ms });
    const perUnit = (ms * 1000) / (count * worlds);
    console.log(
      `${String(worlds).padStart(6)}  ${String(count).padStart(9)}  ${ms.toFixed(2).padStart(9)}  ${perUnit.toFixed(3).padStart(9)}`,
    );
  }
}
let sxx = 0;
let sxy = 0;
let sx = 0;
let sy = 0;
for (const { worlds, resamples: count, ms } of points) {
  const x = worlds;
  const y = (ms * 1000) / count;
  sx += x;
  sy += y;
  sxx += x * x;
  sxy += x * y;
}
const k = points.length;
const slope = (k * sxy - sx * sy) / (k * sxx - sx * sx);
const intercept = (sy - slope * sx) / k;
console.log(
  `fit: ${intercept.toFixed(2)} us per replicate + ${slope.toFixed(3)} us per (replicate x world)`,
);
