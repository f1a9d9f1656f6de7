#!/usr/bin/env node
// Runs the whole vitest suite and ends with the plain summary line CI reads: "N passed, N failed".
// Vitest's own summary stays above it for humans; the counts come from its JSON reporter.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';

const reportPath = '.vitest-report.json';
rmSync(reportPath, { force: true });
const run = spawnSync(
  'npx',
  [
    'vitest',
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${reportPath}`,
    ...process.argv.slice(2),
  ],
  { stdio: 'inherit' },
);
let passed = 0;
let failed = 0;
let skipped = 0;
try {
  const report = JSON.parse(readFileSync(reportPath, 'utf8'));
  passed = report.numPassedTests;
  failed = report.numFailedTests;
  skipped = report.numPendingTests + report.numTodoTests;
  // A file that fails without a failed test (it fails to load, or a hook such as the temporary
  // folder check of tooling/vitest/temp-dirs-file.ts fails after its tests) still fails the run.
  failed += report.testResults.filter(
    (file) =>
      file.status === 'failed' &&
      !file.assertionResults.some((result) => result.status === 'failed'),
  ).length;
  // Vitest failed outside any test file (the global teardown's temporary folder check): one more.
  if (run.status !== 0 && failed === 0) {
    console.error(`vitest exited with status ${run.status} outside any test: see its output above`);
    failed += 1;
  }
} catch (error) {
  console.error(
    `could not read the vitest JSON report: ${error instanceof Error ? error.message : String(error)}`,
  );
  failed += 1;
}
const exitCode = run.status === 0 && failed === 0 && passed > 0 ? 0 : 1;
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
process.exit(exitCode);
