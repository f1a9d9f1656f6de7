#!/usr/bin/env node
// The pilot-sized bootstrap against numpy (issue 38): 50 worlds, 16 Q_M cells of 6 factors each,
// 2000 resamples, seed 20260902. `weightedMeansBootstrap` draws its own indices; numpy gets the very
// same draws (`drawResampleIndices`, written to a file) and computes the same estimand vectorised:
// multinomial counts (bincount), column means (a matrix product), the geometric mean of each cell's
// six factor means, and the 2.5% / 97.5% quantiles. CPU time per call (process time), since the
// machine is shared. Build first. Prints one line per side; run it twice to see the noise.
//
//   node scripts/bench-bootstrap.mjs [--stats packages/stats/dist/index.js] [--calls 30]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const option = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : process.argv[at + 1];
};
const statsEntry = resolve(option('stats', join(root, 'packages/stats/dist/index.js')));
const stats = await import(statsEntry);
// drawResampleIndices moved to the internal entry; older builds export it from the index.
const internal = await import(statsEntry.replace(/index\.js$/, 'internal.js')).catch(() => stats);
const calls = Number(option('calls', '30'));
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
const statistic = (means, out) => {
  for (let cell = 0; cell < cells; cell++) {
    let product = 1;
    for (let f = 0; f < factors; f++) product *= means[cell * factors + f];
    out[cell] = product ** (1 / factors);
  }
};
const once = () =>
  stats.weightedMeansBootstrap({ data, clusters, width, names, statistic, seed, resamples });
once();
const before = process.cpuUsage();
for (let i = 0; i < calls; i++) once();
const used = process.cpuUsage(before);
const tsMs = (used.user + used.system) / 1e3 / calls;
console.log(`weightedMeansBootstrap: ${tsMs.toFixed(2)} ms CPU a call`);

const scratch = mkdtempSync(join(tmpdir(), 'chi-bench-bootstrap-'));
const draws = (internal.drawResampleIndices ?? stats.drawResampleIndices)({ clusterCount: clusters, resamples, seed });
writeFileSync(join(scratch, 'draws.bin'), Buffer.from(draws.buffer));
const python = spawnSync(
  'python3',
  [join(root, 'scripts/bench-bootstrap.py'), join(scratch, 'draws.bin'), String(calls)],
  { encoding: 'utf8', env: { ...process.env, OMP_NUM_THREADS: '1', OPENBLAS_NUM_THREADS: '1' } },
);
rmSync(scratch, { recursive: true, force: true });
if (python.status !== 0) {
  console.error(`bench-bootstrap: python3 with numpy failed\n${python.stderr}`);
  process.exit(1);
}
const npMs = Number(python.stdout.trim());
console.log(`numpy vectorised (same draws, one thread): ${npMs.toFixed(2)} ms CPU a call`);
console.log(`ratio: ${(tsMs / npMs).toFixed(2)}x numpy`);
