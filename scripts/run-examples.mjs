#!/usr/bin/env node
// Runs every example's `start` script (examples/<name>/package.json) and fails if any fails. Each
// example checks its own output against hand-derived values and exits non-zero on a difference,
// so this is the examples' test in CI. Run after `pnpm build`: examples import the built packages
// through their workspace:* dependencies, as a user would. Examples write only into a temporary
// folder (TMPDIR points at one per run), removed afterwards.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pnpmCommand } from './pnpm-command.mjs';

const pnpm = pnpmCommand();

const root = resolve(import.meta.dirname, '..');
const examplesDir = join(root, 'examples');
const PER_EXAMPLE_TIMEOUT_MS = 180_000;

const examples = readdirSync(examplesDir, { withFileTypes: true })
  .filter(
    (entry) => entry.isDirectory() && existsSync(join(examplesDir, entry.name, 'package.json')),
  )
  .map((entry) => entry.name)
  .sort();

const results = [];
for (const name of examples) {
  const dir = join(examplesDir, name);
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  if (manifest.scripts?.start === undefined) {
    results.push({ name, ok: false, detail: 'no start script' });
    continue;
  }
  const scratch = mkdtempSync(join(tmpdir(), `chi-example-${name}-`));
  const startedMs = Date.now();
  console.log(`\n=== examples/${name}: pnpm run start`);
  const run = spawnSync(pnpm.command, [...pnpm.prefix, 'run', '--silent', 'start'], {
    cwd: dir,
    stdio: 'inherit',
    timeout: PER_EXAMPLE_TIMEOUT_MS,
    env: { ...process.env, TMPDIR: scratch },
  });
  rmSync(scratch, { recursive: true, force: true });
  const seconds = ((Date.now() - startedMs) / 1000).toFixed(1);
  const ok = run.status === 0;
  const detail =
    run.error !== undefined
      ? run.error.message
      : run.signal !== null
        ? `killed by ${run.signal}`
        : `exit ${run.status}`;
  results.push({ name, ok, detail: `${detail}, ${seconds} s` });
}

console.log('\nexamples:');
for (const result of results)
  console.log(`  ${result.ok ? 'ok  ' : 'FAIL'} ${result.name} (${result.detail})`);
const failed = results.filter((result) => !result.ok);
if (examples.length === 0) {
  console.error('run-examples: no examples found');
  process.exitCode = 1;
} else if (failed.length > 0) {
  console.error(`run-examples: ${failed.length} of ${results.length} example(s) failed`);
  process.exitCode = 1;
} else {
  console.log(`run-examples: all ${results.length} examples ran and passed their self-checks`);
}
