#!/usr/bin/env node
// The pilot-sized bootstrap against numpy (issue 38): 50 worlds, 16 Q_M cells of 6 factors each,
// 2000 resamples, seed 20260902. `weightedMeansBootstrap` draws its own indices; numpy gets the very
// same draws (`drawResampleIndices`, written to a file) and computes the same estimand vectorised:
// multinomial counts (bincount), column means (a matrix product), the geometric mean of each cell's
// six factor means, and the 2.5% / 97.5% quantiles. Synthetic data (a fixed linear congruential
// sequence), not results.
//
// CPU time per call (process time), since the machine is shared. Each repetition times `--calls`
// calls of every build given, then numpy's `--calls` calls, one after the other, so a repetition's
// sides see the same load; the summary gives min and median over `--repeat` repetitions of each
// side and of each repetition's ratio. Besides the whole call, the statistic alone (the same 2000
// calls on one means vector) is timed, and "library" is the whole call less the statistic: the
// part `@chi/stats` can change. Build first.
//
//   node scripts/bench-bootstrap.mjs [--stats packages/stats/dist/index.js] [--base OTHER/dist/index.js]
//                                    [--calls 30] [--repeat 7]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const option = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : process.argv[at + 1];
};
const calls = Number(option('calls', '30'));
const repeat = Number(option('repeat', '7'));
const clusters = 50;
const cells = 16;
const factors = 6;
const width = cells * factors;
const resamples = 2000;
const seed = 20260902;
const data = new Float64Array(clusters * width);
let state = 1;
for (let i = 0; i < data.length; i++) {
  state = (state * 48271) % 2147483647;
  data[i] = 0.05 + (0.95 * state) / 2147483647;
}
const names = Array.from({ length: cells }, (_, i) => `q${i}`);
/** Q_M of each cell: the geometric mean of its six factor means, (product)^(1/6). */
const statistic = (means, out) => {
  for (let cell = 0; cell < cells; cell++) {
    let product = 1;
    for (let f = 0; f < factors; f++) product *= means[cell * factors + f];
    out[cell] = product ** (1 / factors);
  }
};

/**
 * Only for timing the library apart from the statistic: the same loop without the power (the
 * product of the six means), so nearly all of a call's time is the library's.
 */
const productOnly = (means, out) => {
  for (let cell = 0; cell < cells; cell++) {
    let product = 1;
    for (let f = 0; f < factors; f++) product *= means[cell * factors + f];
    out[cell] = product;
  }
};

async function load(entry) {
  const stats = await import(entry);
  // drawResampleIndices moved to the internal entry; older builds export it from the index.
  const internal = await import(entry.replace(/index\.js$/, 'internal.js')).catch(() => stats);
  return { stats, drawResampleIndices: internal.drawResampleIndices ?? stats.drawResampleIndices };
}

const sides = [['branch', resolve(option('stats', join(root, 'packages/stats/dist/index.js')))]];
if (option('base', undefined) !== undefined) sides.unshift(['base', resolve(option('base'))]);
const builds = [];
for (const [name, entry] of sides) builds.push({ name, ...(await load(entry)) });

const cpuMs = (run, count) => {
  const before = process.cpuUsage();
  for (let i = 0; i < count; i++) run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1e3 / count;
};
const calls_ =
  (build, use = statistic) =>
  () =>
    build.stats.weightedMeansBootstrap({
      data,
      clusters,
      width,
      names,
      statistic: use,
      seed,
      resamples,
    });

// The same results from every build (byte-identical outputs are the rule of issue 38).
const outputs = builds.map((build) => JSON.stringify(calls_(build)()));
if (outputs.some((output) => output !== outputs[0])) {
  console.error('bench-bootstrap: the builds give different results');
  process.exit(1);
}

const scratch = mkdtempSync(join(tmpdir(), 'chi-bench-bootstrap-'));
const draws = builds[0].drawResampleIndices({ clusterCount: clusters, resamples, seed });
writeFileSync(join(scratch, 'draws.bin'), Buffer.from(draws.buffer));
const numpyMs = () => {
  const python = spawnSync(
    'python3',
    [join(root, 'scripts/bench-bootstrap.py'), join(scratch, 'draws.bin'), String(calls)],
    { encoding: 'utf8', env: { ...process.env, OMP_NUM_THREADS: '1', OPENBLAS_NUM_THREADS: '1' } },
  );
  if (python.status !== 0) {
    console.error(`bench-bootstrap: python3 with numpy failed\n${python.stderr}`);
    process.exit(1);
  }
  return Number(python.stdout.trim());
};

// The statistic alone: the calls weightedMeansBootstrap makes (the original sample and 2000
// replicates), on one fixed means vector.
const fixedMeans = new Float64Array(width).fill(0.5);
const fixedOut = new Float64Array(cells);
const statisticMs = () =>
  cpuMs(() => {
    for (let r = -1; r < resamples; r++) statistic(fixedMeans, fixedOut);
  }, calls);

for (const build of builds)
  for (let i = 0; i < 5; i++) {
    calls_(build)();
    calls_(build, productOnly)();
  }
const rows = [];
for (let rep = 0; rep < repeat; rep++) {
  const row = { statistic: statisticMs() };
  for (const build of builds) {
    row[build.name] = cpuMs(calls_(build), calls);
    row[`${build.name}-product`] = cpuMs(calls_(build, productOnly), calls);
  }
  row.numpy = numpyMs();
  rows.push(row);
  const parts = builds.map(
    (b) =>
      `${b.name} ${row[b.name].toFixed(2)} ms (${(row[b.name] / row.numpy).toFixed(2)}x; without the power ${row[`${b.name}-product`].toFixed(2)} ms)`,
  );
  console.log(
    `rep ${rep + 1}: ${parts.join(', ')}; numpy ${row.numpy.toFixed(2)} ms; statistic alone ${row.statistic.toFixed(2)} ms`,
  );
}
rmSync(scratch, { recursive: true, force: true });

const summary = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return `min ${sorted[0].toFixed(2)}, median ${median.toFixed(2)}`;
};
console.log(`\n${repeat} repetitions of ${calls} calls, CPU ms a call (ratios: per repetition)`);
console.log(`numpy vectorised (same draws, one thread): ${summary(rows.map((r) => r.numpy))}`);
console.log(`statistic alone (2001 calls): ${summary(rows.map((r) => r.statistic))}`);
for (const build of builds) {
  const whole = rows.map((r) => r[build.name]);
  const library = rows.map((r) => r[build.name] - r.statistic);
  console.log(
    `${build.name} whole call: ${summary(whole)}; ratio to numpy ${summary(rows.map((r) => r[build.name] / r.numpy))}`,
  );
  console.log(
    `${build.name} library (whole less statistic): ${summary(library)}; ratio to numpy ${summary(rows.map((r) => (r[build.name] - r.statistic) / r.numpy))}`,
  );
  const product = rows.map((r) => r[`${build.name}-product`]);
  console.log(
    `${build.name} whole call, statistic without the power: ${summary(product)}; ratio to numpy ${summary(rows.map((r) => r[`${build.name}-product`] / r.numpy))}`,
  );
}
