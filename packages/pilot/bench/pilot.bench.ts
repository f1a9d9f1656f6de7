// Times the default offline `chi pilot` (five scripted systems, four worlds, loads 32-256, the
// N=32 controls, history A/B/A2 x checkpoints 0-4, behavioral halves) including the release
// written by @chi/report, in process and as the built CLI. Prints a table; exits 1 over 60 s.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultOfflineSettings, type PilotEvent, runPilot } from '../src/index';

const LIMIT_MS = 60_000;
const runs = Number(process.env.CHI_BENCH_RUNS ?? 3);
const rows: {
  label: string;
  totalMs: number;
  executeMs: number;
  releaseMs: number;
  requests: number;
}[] = [];

for (let index = 0; index < runs; index++) {
  const dir = mkdtempSync(join(tmpdir(), 'chi-bench-'));
  let executeMs = 0;
  let requests = 0;
  let executedAt = 0;
  const started = performance.now();
  const onEvent = (event: PilotEvent) => {
    if (event.type === 'run-finished') {
      executeMs = event.elapsedMs;
      requests = event.progress.total;
      executedAt = performance.now();
    }
  };
  const outcome = await runPilot({
    settings: defaultOfflineSettings(),
    runDir: join(dir, 'run'),
    onEvent,
  });
  const totalMs = performance.now() - started;
  if (outcome.exitCode !== 0)
    throw new Error(`run ${index} ended with exit code ${outcome.exitCode}`);
  rows.push({
    label: `in process #${index + 1}`,
    totalMs,
    executeMs,
    releaseMs: performance.now() - executedAt,
    requests,
  });
  rmSync(dir, { recursive: true, force: true });
}

const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
if (existsSync(cli)) {
  const dir = mkdtempSync(join(tmpdir(), 'chi-bench-cli-'));
  const started = performance.now();
  const child = spawnSync(process.execPath, [cli, 'pilot'], { cwd: dir, encoding: 'utf8' });
  const totalMs = performance.now() - started;
  if (child.status !== 0) throw new Error(`chi pilot exited ${child.status}: ${child.stderr}`);
  const executed = /completed: .* · ([0-9.]+) s\n/.exec(child.stderr);
  rows.push({
    label: 'node dist/cli.js pilot',
    totalMs,
    executeMs: executed === null ? Number.NaN : Number(executed[1]) * 1000,
    releaseMs: Number.NaN,
    requests: 780,
  });
  rmSync(dir, { recursive: true, force: true });
} else {
  console.log(`(skipping the CLI timing: build first, ${cli} is missing)`);
}

const seconds = (ms: number) => (Number.isNaN(ms) ? '    -' : (ms / 1000).toFixed(2).padStart(6));
console.log('default offline pilot (780 requests, with release)');
console.log('run                       requests   total s   execute s   release s');
for (const row of rows) {
  console.log(
    `${row.label.padEnd(25)} ${String(row.requests).padStart(8)}   ${seconds(row.totalMs)}    ${seconds(row.executeMs)}      ${seconds(row.releaseMs)}`,
  );
}
const worst = Math.max(...rows.map((row) => row.totalMs));
console.log(
  `slowest: ${(worst / 1000).toFixed(2)} s (limit ${LIMIT_MS / 1000} s): ${worst < LIMIT_MS ? 'PASS' : 'FAIL'}`,
);
if (worst >= LIMIT_MS) process.exitCode = 1;
