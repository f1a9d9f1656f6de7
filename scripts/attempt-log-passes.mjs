#!/usr/bin/env node
// How many times one `chi score` reads a run's attempt log (the run folder's `attempts` file), and from where (issue 38: the report
// folds the log several times). Measures only; changes nothing in the command.
//
// Two counters over one `chi score DIR` process:
// - strace (openat, read, pread64 with -y, so every read names its file): how many times
//   the log is opened and how many bytes are read from it; bytes / file size = passes;
// - a preload (--import) that wraps node:fs's open functions and records the JavaScript call
//   site (the first frames inside packages/) of every open of the log.
//
//   node scripts/attempt-log-passes.mjs RUN_DIR [--chi packages/pilot/dist/cli.js] [--no-release]
//
// RUN_DIR is scored in place (score rewrites its derived files and release, as `chi score` does).
//
// Figures, 30-world v0.1 run (79.7 MB log), docs/benchmarks/throughput.md: main `0c094c0` opens
// the log 7,041 times and reads 22.0x its size (8 streamed passes, 883 window reads); branch
// `reader-38` (one reader and one fold in @chi/run) 7,157 times and 18.0x (7 passes, 634 windows).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
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
// The log's name comes from @chi/run, the only place run-file names are spelled (build first).
const { runFolderPaths } = await import(
  pathToFileURL(join(root, 'packages/run/dist/internal.js')).href
);
const logPath = runFolderPaths(runDir).attempts;
const logName = basename(logPath);
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
  if (!String(path).endsWith(${JSON.stringify(logName)})) return;
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
  ['-f', '-qq', '-y', '-e', 'trace=openat,read,pread64,close', '-o', trace, ...command],
  { stdio: ['ignore', 'ignore', 'inherit'] },
);
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
if (result.status !== 0) {
  console.error(`attempt-log-passes: chi score exited ${result.status}`);
  process.exit(1);
}
let opens = 0;
const bytesByPath = new Map();
// Bytes read through each open of the log (fd -> bytes so far), closed opens in `perOpen`.
const openFds = new Map();
const perOpen = [];
// With -f, a call that another thread interrupts is split into `<unfinished ...>` and
// `<... read resumed>` lines of the same PID: join them before reading the call.
const pending = new Map();
const calls = [];
for (const raw of readFileSync(trace, 'utf8').split('\n')) {
  const prefixed = /^(\d+)\s+(.*)$/.exec(raw);
  if (!prefixed) continue;
  const [, pid, text] = prefixed;
  if (text.endsWith('<unfinished ...>')) {
    pending.set(pid, text.slice(0, -'<unfinished ...>'.length));
    continue;
  }
  const resumed = /^<\.\.\. \w+ resumed>(.*)$/.exec(text);
  if (resumed) {
    calls.push((pending.get(pid) ?? '') + resumed[1]);
    pending.delete(pid);
  } else calls.push(text);
}
for (const line of calls) {
  const opened = /openat\(.*"([^"]+)".*\)\s+=\s+(\d+)</.exec(line);
  if (opened && opened[1] === logPath) {
    opens++;
    openFds.set(opened[2], 0);
  }
  const read = /(?:read|pread64)\((\d+)<([^>]*)>.*\)\s+=\s+(\d+)/.exec(line);
  if (read?.[2]?.endsWith(`/${logName}`)) {
    bytesByPath.set(read[2], (bytesByPath.get(read[2]) ?? 0) + Number(read[3]));
    if (read[2] === logPath && openFds.has(read[1]))
      openFds.set(read[1], openFds.get(read[1]) + Number(read[3]));
  }
  const closed = /close\((\d+)<([^>]*)>\)/.exec(line);
  if (closed && closed[2] === logPath && openFds.has(closed[1])) {
    perOpen.push(openFds.get(closed[1]));
    openFds.delete(closed[1]);
  }
}
const bytes = bytesByPath.get(logPath) ?? 0;
const bySite = new Map();
for (const line of readFileSync(sites, 'utf8').split('\n').filter(Boolean)) {
  const { kind, frames } = JSON.parse(line);
  const key = `${kind} <- ${frames.join(' <- ')}`;
  bySite.set(key, (bySite.get(key) ?? 0) + 1);
}
rmSync(scratch, { recursive: true, force: true });
console.log(`${logName}: ${logBytes} bytes; chi score took ${seconds.toFixed(1)} s (under strace)`);
console.log(
  `opened ${opens} times (openat); read ${bytes} bytes = ${(bytes / logBytes).toFixed(2)} times its size`,
);
const whole = perOpen.filter((read) => read >= logBytes);
const partial = perOpen.filter((read) => read < logBytes);
const sum = (values) => values.reduce((a, b) => a + b, 0);
console.log(
  `opens that read the whole log: ${whole.length} (${sum(whole)} bytes); opens that read part of it: ${partial.length} (${sum(partial)} bytes, largest ${Math.max(0, ...partial)}, ${partial.filter((read) => read === 0).length} read nothing)`,
);
for (const [path, read] of bytesByPath)
  if (path !== logPath) console.log(`also read: ${path}, ${read} bytes`);
console.log('opens by JavaScript call site (count, then fs function <- frames inside packages/):');
for (const [key, count] of [...bySite].sort((a, b) => b[1] - a[1]))
  console.log(`${String(count).padStart(4)}  ${key}`);
