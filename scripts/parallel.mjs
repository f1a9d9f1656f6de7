#!/usr/bin/env node
// Runs independent steps of `npm run check` side by side, as many at a time as the machine has
// cores (`--jobs N` to choose), and prints their output in the order the steps are given, never
// interleaved: the first step streams as it runs, each later one is held until every step before
// it has been printed, then printed whole and streamed from there on. The log therefore reads as if
// the steps ran one after another, and when all pass the last step's last line is the last. Steps
// start in the order given. Exits 1, after every step has ended, when any step failed, naming the
// failed ones after the steps' output. Usage:
//   node scripts/parallel.mjs [--jobs N] 'command one' 'command two && command three' ...
// Each argument is one `sh -c` command line run from the repository root with the same
// environment (npm puts node_modules/.bin on PATH). Steps do not share temporary folders: every
// step of `check` makes its own.
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const jobsAt = args.indexOf('--jobs');
const jobs = jobsAt === -1 ? availableParallelism() : Number(args[jobsAt + 1]);
const commands =
  jobsAt === -1 ? args : args.filter((_, index) => index !== jobsAt && index !== jobsAt + 1);
if (!Number.isInteger(jobs) || jobs < 1 || commands.length === 0) {
  console.error('usage: node scripts/parallel.mjs [--jobs N] "command" ["command" ...]');
  process.exit(2);
}

const startedMs = Date.now();
// Per step: its output so far (until it is printed), and its exit status and seconds once ended.
const steps = commands.map(() => ({ chunks: [], ended: false, status: null, seconds: '' }));
// The first step not yet wholly printed: its output goes out as it comes (a long last step such as
// the test suite streams once every step before it has been printed).
let head = 0;

function startHead() {
  process.stdout.write(`\n> ${commands[head]}\n`);
  for (const chunk of steps[head].chunks) process.stdout.write(chunk);
  steps[head].chunks = [];
}

/** Prints every ended step at the head, then starts printing the next one. */
function advance() {
  while (head < commands.length && steps[head].ended) {
    const step = steps[head];
    if (step.status !== 0)
      process.stdout.write(
        `> FAILED (exit ${step.status}, ${step.seconds} s): ${commands[head]}\n`,
      );
    head += 1;
    if (head < commands.length) startHead();
  }
}

function runStep(index) {
  return new Promise((done) => {
    const started = Date.now();
    const step = steps[index];
    const child = spawn('sh', ['-c', commands[index]], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const take = (chunk) => {
      if (index === head) process.stdout.write(chunk);
      else step.chunks.push(chunk);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    const finish = (status) => {
      if (step.ended) return;
      step.ended = true;
      step.status = status;
      step.seconds = ((Date.now() - started) / 1000).toFixed(1);
      advance();
      done();
    };
    child.on('error', (error) => {
      take(Buffer.from(`${error.message}\n`));
      finish(1);
    });
    child.on('close', (code, signal) => finish(code ?? `signal ${signal}`));
  });
}

startHead();
let next = 0;
async function worker() {
  while (next < commands.length) {
    const index = next;
    next += 1;
    await runStep(index);
  }
}
await Promise.all(Array.from({ length: Math.min(jobs, commands.length) }, worker));

const failed = commands.filter((_, index) => steps[index].status !== 0);
if (failed.length > 0) {
  console.error(
    `\nparallel: ${failed.length} of ${commands.length} step(s) failed (${((Date.now() - startedMs) / 1000).toFixed(1)} s):\n${failed.map((command) => `  ${command}`).join('\n')}`,
  );
  process.exit(1);
}
