#!/usr/bin/env node
// How many times one `chi score` reads a run's attempt log, and from where (issue 38: the report
// folds the log several times). Measures only; changes nothing in the command.
//
// Two counters over one `chi score DIR` process:
// - strace (openat, read, pread64 with -y, so every read names its file): how many times
//   attempts.jsonl is opened and how many bytes are read from it; bytes / file size = passes;
// - a preload (--import) that wraps node:fs's open functions and records the JavaScript call
//   site (the first frames inside packages/) of every open of attempts.jsonl.
//
//   node scripts/attempt-log-passes.mjs RUN_DIR [--chi packages/pilot/dist/cli.js] [--no-release]
//
// RUN_DIR is scored in place (score rewrites its derived files and release, as `chi score` does).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : args[at + 1];
};
const runDir = args[0] && !args[0].startsWith('--') ? resolve(args[0]) : undefined;
if (runDir === undefined) {
  console.error('usage: node scripts/attempt-log-passes.mjs RUN_DIR [--chi CLI] [--no-release]');
  process.exit(2);
}
const chi = resolve(option('chi', join(root, 'packages/pilot/dist/cli.js')));
const logPath = join(runDir, 'attempts.jsonl');
const logBytes = statSync(logPath).size;
const scratch = mkdtempSync(join(tmpdir(), 'chi-attempt-passes-'));
const sites = join(scratch, 'sites.jsonl');
const hook = join(scratch, 'hook.mjs');
writeFileSync(
  hook,
  `import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
const out = ${JSON.stringify(sites)};
const site = (kind, path) => {
  if (typeof path !== 'string' && !(path instanceof URL)) return;
  if (!String(path).endsWith('attempts.jsonl')) return;
  const frames = (new Error().stack ?? '').split('\\n').slice(2)
    .filter((line) => line.includes('/packages/')).slice(0, 4)
    .map((line) => line.trim().replace(/^at /, '').replace(/\\(?file:\\/\\/.*?\\/packages\\//, '(packages/'));
  fs.appendFileSync(out, JSON.stringify({ kind, frames }) + '\\n');
};
for (const name of ['open', 'openSync', 'createReadStream', 'readFileSync', 'readFile']) {
  const original = fs[name];
  fs[name] = function (path, ...rest) { site(name, path); return original.call(this, path, ...rest); };
}
for (const name of ['open', 'readFile']) {
  const original = fs.promises[name];
  fs.promises[name] = function (path, ...rest) { site('promises.' + name, path); return original.call(this, path, ...rest); };
}
syncBuiltinESMExports();
`,
);
const trace = join(scratch, 'trace');
const command = ['node', '--import', pathToFileURL(hook).href, chi, 'score', runDir];
if (args.includes('--no-release')) command.push('--no-release');
const started = process.hrtime.bigint();
const result = spawnSync(
  'strace',
  ['-f', '-qq', '-y', '-e', 'trace=openat,read,pread64', '-o', trace, ...command],
  { stdio: ['ignore', 'ignore', 'inherit'] },
);
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
if (result.status !== 0) {
  console.error(`attempt-log-passes: chi score exited ${result.status}`);
  process.exit(1);
}
let opens = 0;
const bytesByPath = new Map();
for (const line of readFileSync(trace, 'utf8').split('\n')) {
  if (line.includes('openat(') && line.includes(`${logPath}"`) && !/= -1/.test(line)) opens++;
  const read = /(?:read|pread64)\(\d+<([^>]*)>.*\)\s+=\s+(\d+)/.exec(line);
  if (read?.[1]?.endsWith('/attempts.jsonl'))
    bytesByPath.set(read[1], (bytesByPath.get(read[1]) ?? 0) + Number(read[2]));
}
const bytes = bytesByPath.get(logPath) ?? 0;
const bySite = new Map();
for (const line of readFileSync(sites, 'utf8').split('\n').filter(Boolean)) {
  const { kind, frames } = JSON.parse(line);
  const key = `${kind} <- ${frames.join(' <- ')}`;
  bySite.set(key, (bySite.get(key) ?? 0) + 1);
}
rmSync(scratch, { recursive: true, force: true });
console.log(
  `attempts.jsonl: ${logBytes} bytes; chi score took ${seconds.toFixed(1)} s (under strace)`,
);
console.log(
  `opened ${opens} times (openat); read ${bytes} bytes = ${(bytes / logBytes).toFixed(2)} passes over the whole log`,
);
console.log('opens by JavaScript call site (count, then fs function <- frames inside packages/):');
for (const [key, count] of [...bySite].sort((a, b) => b[1] - a[1]))
  console.log(`${String(count).padStart(4)}  ${key}`);
