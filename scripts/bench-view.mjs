#!/usr/bin/env node
// The `chi view` benchmark of issue 37 (not run in CI, not a test: figures in
// docs/benchmarks/view.md). For each run folder or release given, in a fresh Node process with
// --expose-gc, it starts the viewer's server (127.0.0.1, port 0) and times the calls the page
// makes, in the order it makes them:
//   first paint    GET /  +  GET api/summary          (the summary is drawn after these two)
//   progress       GET api/progress                    (drawn when it arrives; polled after)
//   world page     GET api/worlds?system=<first>&offset=0&limit=10
//   cell items     GET api/items?system=<first>&world=<first>&cell=<first>&start=0 (scores it)
//   item           GET api/item?... + api/request?id=... (the probe page of its first item)
// and the server process's memory: live heap after a full GC and RSS after each step, and the
// peak RSS. It prints a markdown table row per folder; times are wall ms (CPU ms of the process).
//
//   node scripts/bench-view.mjs DIR [DIR...]
//
// With --chi CLI (a built `chi` executable, e.g. packages/pilot/dist/cli.js) it measures the
// whole `chi view DIR` process instead, as a user starts it: from spawning `node CLI view DIR` to
// the first screen (its URL printed, then GET / and GET api/summary answered), the process's CPU
// ms (user + system from /proc/PID/stat, 10 ms ticks) and wall ms, --repeat N times (default 5):
//
//   node scripts/bench-view.mjs --chi packages/pilot/dist/cli.js [--repeat N] DIR
//
// Build first (`npx -y pnpm@12.4.2 run build`). Make the folders with
// `node packages/pilot/dist/cli.js pilot --loads v0.1 --replicates N --out DIR` (an offline
// scripted run; N worlds).
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(import.meta.dirname, '..');

function megabytes(bytes) {
  return (bytes / 1024 / 1024).toFixed(0);
}

async function child(dir) {
  const { startViewServer } = await import(
    pathToFileURL(resolve(root, 'packages/report/dist/index.js')).href
  );
  const memory = () => {
    globalThis.gc();
    const m = process.memoryUsage();
    return `${megabytes(m.heapUsed)} / ${megabytes(m.rss)}`;
  };
  const figures = { before: memory() };
  const started = performance.now();
  const startedCpu = process.cpuUsage();
  const server = await startViewServer({ dir });
  const get = async (path) => {
    const response = await fetch(new URL(path, server.url));
    const text = await response.text();
    if (!response.ok) throw new Error(`${path}: ${response.status} ${text}`);
    return text;
  };
  // CPU ms (user + system) as well as wall ms: on a loaded machine wall time is mostly waiting
  const cpuMs = (since) => {
    const used = process.cpuUsage(since);
    return Math.round((used.user + used.system) / 1000);
  };
  const timed = async (name, step) => {
    const at = performance.now();
    const cpu = process.cpuUsage();
    const value = await step();
    figures[name] = {
      ms: `${Math.round(performance.now() - at)} (${cpuMs(cpu)})`,
      memory: memory(),
    };
    return value;
  };
  await get('/');
  const summary = JSON.parse(await get('api/summary'));
  figures.firstPaint = {
    ms: `${Math.round(performance.now() - started)} (${cpuMs(startedCpu)})`,
    memory: memory(),
  };
  const progress = JSON.parse(await timed('progress', () => get('api/progress')));
  const system = encodeURIComponent(summary.systems[0].id);
  const grid = JSON.parse(
    await timed('worlds', () => get(`api/worlds?limit=10&offset=0&system=${system}`)),
  );
  const cell = grid.rows[0].cells[0].cellPath;
  const items = JSON.parse(
    await timed('items', () =>
      get(`api/items?cell=${cell}&start=0&system=${system}&world=${summary.worlds[0]}`),
    ),
  );
  const first = items.items[0];
  await timed('item', async () => {
    await get(
      `api/item?key=${encodeURIComponent(first.key)}&system=${system}&world=${first.worldSeed}`,
    );
    await get(`api/request?id=${encodeURIComponent(first.requestId)}`);
  });
  await server.close();
  figures.worlds_ = summary.worlds.length;
  figures.requests = progress.totalRequests;
  figures.peakRssMb = megabytes(process.resourceUsage().maxRSS * 1024);
  process.stdout.write(JSON.stringify(figures));
}

/** CPU ms (user + system) of a running process so far, from /proc (Linux). */
function processCpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // fields[11] and [12] are utime and stime (fields 14 and 15 of stat) in clock ticks (100 Hz)
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** One `chi view DIR` process to its first screen: { cpuMs, wallMs }. */
async function chiViewOnce(cli, dir) {
  const started = performance.now();
  const child = spawn(process.execPath, [cli, 'view', dir, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const url = await new Promise((resolveUrl, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const line = out.split('\n').find((l) => l.startsWith('http://'));
      if (line !== undefined) resolveUrl(line.trim());
    });
    child.once('exit', (code) => reject(new Error(`chi view exited ${code}: ${stderr}`)));
  });
  for (const path of ['/', 'api/summary']) {
    const response = await fetch(new URL(path, url));
    await response.text();
    if (!response.ok) throw new Error(`${path}: ${response.status}`);
  }
  const wallMs = Math.round(performance.now() - started);
  const cpuMs = processCpuMs(child.pid);
  const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
  child.kill('SIGINT');
  await exited;
  return { cpuMs, wallMs };
}

async function chiView(args) {
  const cli = resolve(args[args.indexOf('--chi') + 1]);
  const repeatAt = args.indexOf('--repeat');
  const repeat = repeatAt === -1 ? 5 : Number(args[repeatAt + 1]);
  const dir = resolve(args.at(-1));
  const runs = [];
  for (let i = 0; i < repeat; i++) runs.push(await chiViewOnce(cli, dir));
  const cpu = runs.map((r) => r.cpuMs).sort((a, b) => a - b);
  console.log(`chi view ${dir} (${cli})`);
  console.log(`first screen CPU ms: ${cpu.join(', ')} (median ${cpu[Math.floor(repeat / 2)]})`);
  console.log(`first screen wall ms: ${runs.map((r) => r.wallMs).join(', ')}`);
}

if (process.argv.includes('--chi')) {
  await chiView(process.argv.slice(2));
} else if (process.argv[2] === '--child') {
  await child(process.argv[3]);
} else {
  const dirs = process.argv.slice(2);
  if (dirs.length === 0) {
    console.error('bench-view: expected one or more run folders or releases');
    process.exit(2);
  }
  console.log(
    '| Worlds | Requests | First paint ms | Progress ms | World page ms | Cell items ms | Item + request ms | Heap / RSS MB after first paint | after item | Peak RSS MB |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const dir of dirs) {
    const run = spawnSync(
      process.execPath,
      ['--expose-gc', import.meta.filename, '--child', resolve(dir)],
      { encoding: 'utf8', maxBuffer: 1 << 24 },
    );
    if (run.status !== 0) {
      console.error(`bench-view: ${dir}: ${run.stderr}`);
      process.exit(1);
    }
    const f = JSON.parse(run.stdout);
    console.log(
      `| ${f.worlds_} | ${f.requests} | ${f.firstPaint.ms} | ${f.progress.ms} | ${f.worlds.ms} | ${f.items.ms} | ${f.item.ms} | ${f.firstPaint.memory} | ${f.item.memory} | ${f.peakRssMb} |`,
    );
  }
}
