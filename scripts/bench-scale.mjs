#!/usr/bin/env node
// The scale benchmark of issue 17 (not run in CI: the 30-world run takes minutes). For each world
// count it generates the offline scripted run `chi pilot --loads v0.1 --replicates N`, then times
// each phase as its own child process and records that process's peak RSS:
//   requests          chi pilot --loads v0.1 --replicates N --no-release --out DIR
//   scoring+release   chi score DIR              (writes DIR/release)
//   verify            chi verify DIR/release
// and measures the run folder (without its release) and the release, in apparent bytes (a file
// with several hard links counted once). It prints a markdown table.
//
// Peak RSS moves by up to about 15% between two runs of the same phase (when V8 collects is not
// deterministic), so `--repeat K` runs every phase K times (the requests into a fresh folder each
// time, the last one kept) and prints the median of each figure with its range, e.g.
// `433 (401-452)`.
//
//   node scripts/bench-scale.mjs [--replicates 10,30,60] [--repeat 1] [--chi packages/pilot/dist/cli.js]
//                                [--node-options=--max-old-space-size=1024] [--keep DIR] [--from RUN_DIR]
//                                [--phases requests]
//
// `--phases requests` times the request phase only (no scoring, verify or release sizes: those
// columns read `-`).
// `--from RUN_DIR` (one world count only) skips the request phase: the run folder RUN_DIR (made
// by `chi pilot --loads v0.1 --replicates N --no-release`, e.g. with an earlier `--keep`) is
// copied and only scoring and verify are timed, so two builds can be compared side by side on
// one run (start two of these at once, one with `--chi` of the other build). Each phase also
// reports its CPU seconds (user + system), the figure to compare on a busy machine.
//
// `--protocol divergence-v0.1` times the divergence protocol instead: its run publishes its release
// as it completes (it has no `--no-release`), so the first phase is
//   requests+release  chi pilot --protocol divergence-v0.1 --replicates N --out DIR
// then verify as above; the scoring columns read `-`. With `--from RUN_DIR` (a divergence run
// folder with its release) only verify is timed, on a copy.
//
// Figures under 20 print with one decimal (a verify of a few CPU seconds), the rest as integers.
//
// Build first (`npx -y pnpm@12.4.2 run build`). `--chi` points at another build's CLI to compare.
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');

function option(name, fallback) {
  const args = process.argv.slice(2);
  const inline = args.find((arg) => arg.startsWith(`--${name}=`));
  if (inline !== undefined) return inline.slice(name.length + 3);
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : args[at + 1];
}

const replicates = option('replicates', '10,30,60')
  .split(',')
  .map((value) => Number.parseInt(value, 10));
if (replicates.some((n) => !Number.isInteger(n) || n < 1)) {
  console.error('bench-scale: --replicates expects positive integers, e.g. 10,30,60');
  process.exit(2);
}
const repeat = Number.parseInt(option('repeat', '1'), 10);
if (!Number.isInteger(repeat) || repeat < 1) {
  console.error('bench-scale: --repeat expects a positive integer');
  process.exit(2);
}
const chi = resolve(option('chi', join(root, 'packages/pilot/dist/cli.js')));
const nodeOptions = option('node-options', '');
const keep = option('keep', null);
const requestsOnly = option('phases', 'all') === 'requests';
const from = option('from', null);
const protocol = option('protocol', null);
if (protocol !== null && protocol !== 'divergence-v0.1') {
  console.error('bench-scale: --protocol takes divergence-v0.1 (the pilot is the default)');
  process.exit(2);
}
if (protocol !== null && requestsOnly) {
  console.error(
    'bench-scale: a divergence run publishes its release with it; drop --phases requests',
  );
  process.exit(2);
}
if (from !== null && requestsOnly) {
  console.error('bench-scale: --from skips the request phase; --phases requests times only it');
  process.exit(2);
}
if (from !== null && replicates.length !== 1) {
  console.error("bench-scale: --from needs exactly one --replicates value (the run's)");
  process.exit(2);
}

const scratch = mkdtempSync(join(tmpdir(), 'chi-bench-scale-'));
// Each phase's child writes its own peak RSS on exit (portable: no /usr/bin/time needed).
const preload = join(scratch, 'max-rss.cjs');
writeFileSync(
  preload,
  "process.on('exit', () => { const u = process.resourceUsage(); require('node:fs').writeFileSync(process.env.CHI_BENCH_RSS_FILE, u.maxRSS + ' ' + (u.userCPUTime + u.systemCPUTime)); });\n",
);

function phase(name, args) {
  const rssFile = join(scratch, `${name}.rss`);
  const started = process.hrtime.bigint();
  const child = spawnSync(
    process.execPath,
    [...(nodeOptions === '' ? [] : nodeOptions.split(' ')), '--require', preload, chi, ...args],
    {
      env: { ...process.env, CHI_BENCH_RSS_FILE: rssFile, NO_COLOR: '1' },
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (child.status !== 0) {
    console.error(`bench-scale: ${name} exited ${child.status}\n${child.stderr.slice(-4000)}`);
    process.exit(1);
  }
  const [rssKb, cpuUs] = readFileSync(rssFile, 'utf8').split(' ').map(Number);
  return { name, seconds, rssMb: rssKb / 1024, cpuSeconds: cpuUs / 1e6 };
}

/** Apparent bytes of the files under `dir`, a hard-linked file counted once; `skip` top-level names. */
function treeBytes(dir, skip = new Set()) {
  const seen = new Set();
  let total = 0;
  const walk = (path, top) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      if (top && skip.has(entry.name)) continue;
      const full = join(path, entry.name);
      if (entry.isDirectory()) walk(full, false);
      else if (entry.isFile()) {
        const stat = lstatSync(full);
        const key = `${stat.dev}:${stat.ino}`;
        if (seen.has(key)) continue;
        seen.add(key);
        total += stat.size;
      }
    }
  };
  walk(dir, true);
  return total;
}

const mb = (bytes) => (Number.isNaN(bytes) ? '-' : (bytes / 1024 / 1024).toFixed(1));

/** Runs one phase `repeat` times; `before` runs ahead of each try (e.g. removes the run folder). */
function repeated(name, args, before = () => {}) {
  const tries = [];
  for (let k = 0; k < repeat; k += 1) {
    before();
    tries.push(phase(`${name}-${k}`, args));
  }
  return tries;
}

const rows = [];
for (const n of replicates) {
  const runDir = join(keep ?? scratch, protocol === null ? `v01-r${n}` : `divergence-r${n}`);
  let requests = [];
  if (from === null && protocol !== null)
    requests = repeated(
      `requests-${n}`,
      ['pilot', '--protocol', protocol, '--replicates', String(n), '--out', runDir],
      () => rmSync(runDir, { recursive: true, force: true }),
    );
  else if (from === null)
    requests = repeated(
      `requests-${n}`,
      ['pilot', '--loads', 'v0.1', '--replicates', String(n), '--no-release', '--out', runDir],
      () => rmSync(runDir, { recursive: true, force: true }),
    );
  else {
    rmSync(runDir, { recursive: true, force: true });
    cpSync(resolve(from), runDir, {
      recursive: true,
      // A divergence run's release is its own (no `chi score` remakes it): copied with the run.
      filter: (path) => protocol !== null || path !== join(resolve(from), 'release'),
    });
  }
  const score = requestsOnly || protocol !== null ? [] : repeated(`score-${n}`, ['score', runDir]);
  const verify = requestsOnly ? [] : repeated(`verify-${n}`, ['verify', join(runDir, 'release')]);
  const runBytes = treeBytes(runDir, new Set(['release']));
  const releaseBytes = requestsOnly ? Number.NaN : treeBytes(join(runDir, 'release'));
  const totalBytes = requestsOnly ? Number.NaN : treeBytes(runDir);
  rows.push({ n, requests, score, verify, runBytes, releaseBytes, totalBytes });
  if (keep === null) rmSync(runDir, { recursive: true, force: true });
  console.error(`bench-scale: ${n} worlds done`);
}
rmSync(scratch, { recursive: true, force: true });

const machine = `${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'}), ${(totalmem() / 1024 ** 3).toFixed(1)} GB RAM, Node ${process.version}${nodeOptions === '' ? '' : `, ${nodeOptions}`}`;
console.log(
  `${protocol === null ? 'The pilot (`--loads v0.1`)' : `The ${protocol} protocol (its run writes its release: the requests columns include it)`}. Machine: ${machine}; CLI: ${chi.startsWith(root) ? chi.slice(root.length + 1) : chi}; ${repeat === 1 ? 'one try per phase' : `median (range) of ${repeat} tries per phase`}\n`,
);
console.log(
  '| worlds | requests s | requests CPU s | requests RSS MB | scoring + release s | scoring CPU s | scoring RSS MB | verify s | verify CPU s | verify RSS MB | run folder MB (without release) | release MB | folder with release MB |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
/** The median of the tries' figure, with its range when there are several tries. */
function figure(tries, pick) {
  if (tries.length === 0) return '-';
  const values = tries.map(pick).sort((a, b) => a - b);
  const mid = Math.floor(values.length / 2);
  const median = values.length % 2 === 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
  const digits = median < 20 ? 1 : 0;
  const shown = median.toFixed(digits);
  return values.length === 1
    ? shown
    : `${shown} (${values[0].toFixed(digits)}-${values[values.length - 1].toFixed(digits)})`;
}

const seconds = (tries) => figure(tries, (t) => t.seconds);
const rss = (tries) => figure(tries, (t) => t.rssMb);
const cpu = (tries) => figure(tries, (t) => t.cpuSeconds);
for (const row of rows) {
  console.log(
    `| ${row.n} | ${seconds(row.requests)} | ${cpu(row.requests)} | ${rss(row.requests)} | ${seconds(row.score)} | ${cpu(row.score)} | ${rss(row.score)} | ${seconds(row.verify)} | ${cpu(row.verify)} | ${rss(row.verify)} | ${mb(row.runBytes)} | ${mb(row.releaseBytes)} | ${mb(row.totalBytes)} |`,
  );
}
