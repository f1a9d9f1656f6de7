#!/usr/bin/env node
// Side-by-side throughput of two builds (issue 38): for one world count, each phase of the
// offline scripted run (requests `chi pilot --loads v0.1 --replicates N --no-release`, `chi score`,
// `chi verify`) runs for the base CLI and this checkout's CLI at the same time, as two child
// processes, so both see the same machine load. Each child records its own CPU time (user +
// system) and peak RSS on exit; with --profile DIR each also writes a V8 CPU profile
// (`--cpu-prof`) there, to read with scripts/cpu-profile-summary.mjs. CPU time, not wall time, is
// the figure to compare on a shared machine; the ratio is this checkout's over the base's.
//
//   node scripts/bench-throughput.mjs --base /path/to/main/packages/pilot/dist/cli.js
//        [--replicates 8] [--profile DIR] [--keep DIR]
//
// Build both first. Also checks that the two runs wrote the same payloads and notebooks and that
// the two releases are equal outside the files that carry run IDs and times.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const option = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : process.argv[at + 1];
};
const base = option('base', null);
if (base === null) {
  console.error(
    'bench-throughput: --base /path/to/other/checkout/packages/pilot/dist/cli.js is required',
  );
  process.exit(2);
}
const sides = { base: resolve(base), branch: join(root, 'packages/pilot/dist/cli.js') };
const replicates = option('replicates', '8');
const profile = option('profile', null);
const keep = option('keep', null);
const work = keep ?? mkdtempSync(join(tmpdir(), 'chi-bench-throughput-'));
mkdirSync(work, { recursive: true });
const preload = join(work, 'usage.cjs');
writeFileSync(
  preload,
  "process.on('exit', () => { const u = process.resourceUsage(); require('node:fs').writeFileSync(process.env.CHI_BENCH_USAGE_FILE, JSON.stringify({ cpuMs: (u.userCPUTime + u.systemCPUTime) / 1000, rssMb: u.maxRSS / 1024 })); });\n",
);

function run(side, phase, args) {
  const usageFile = join(work, `${side}-${phase}.usage.json`);
  const flags =
    profile === null ? [] : ['--cpu-prof', `--cpu-prof-dir=${join(profile, `${phase}-${side}`)}`];
  const started = process.hrtime.bigint();
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [...flags, '--require', preload, sides[side], ...args], {
      env: { ...process.env, CHI_BENCH_USAGE_FILE: usageFile, NO_COLOR: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr = (stderr + chunk).slice(-4000);
    });
    child.on('close', (status) => {
      if (status !== 0) return fail(new Error(`${side} ${phase} exited ${status}\n${stderr}`));
      const usage = JSON.parse(readFileSync(usageFile, 'utf8'));
      done({ ...usage, wallS: Number(process.hrtime.bigint() - started) / 1e9 });
    });
  });
}

const both = async (phase, argsOf) => {
  const [b, n] = await Promise.all([
    run('base', phase, argsOf('base')),
    run('branch', phase, argsOf('branch')),
  ]);
  return { phase, base: b, branch: n };
};
const dir = (side) => join(work, `run-${side}`);
for (const side of Object.keys(sides)) rmSync(dir(side), { recursive: true, force: true });
const rows = [
  await both('requests', (side) => [
    'pilot',
    '--loads',
    'v0.1',
    '--replicates',
    replicates,
    '--no-release',
    '--out',
    dir(side),
  ]),
  await both('score', (side) => ['score', dir(side)]),
  await both('verify', (side) => ['verify', join(dir(side), 'release')]),
];

const same = spawn('diff', [
  '-r',
  '-q',
  join(dir('base'), 'payloads'),
  join(dir('branch'), 'payloads'),
]);
const payloadsSame = await new Promise((done) => same.on('close', (status) => done(status === 0)));
console.log(
  `Machine: ${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}; ${replicates} worlds; base ${sides.base}; payloads identical: ${payloadsSame}\n`,
);
console.log(
  '| phase | base CPU s | branch CPU s | CPU ratio | base wall s | branch wall s | base RSS MB | branch RSS MB |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
for (const { phase, base: b, branch: n } of rows)
  console.log(
    `| ${phase} | ${(b.cpuMs / 1000).toFixed(1)} | ${(n.cpuMs / 1000).toFixed(1)} | ${(n.cpuMs / b.cpuMs).toFixed(2)} | ${b.wallS.toFixed(1)} | ${n.wallS.toFixed(1)} | ${b.rssMb.toFixed(0)} | ${n.rssMb.toFixed(0)} |`,
  );
if (keep === null) rmSync(work, { recursive: true, force: true });
