/**
 * A measuring reporter, not part of the test run: writes one JSON line per test file with the
 * whole time the file held its worker, split the way Vitest records it. Vitest's JSON reporter
 * gives a file the span of its tests only (first test's start to last test's end), so a file-level
 * `beforeAll` that makes a whole run, the file's imports and its worker's start are not in it; this
 * one has them. Usage (docs/benchmarks/ci.md):
 *
 *   CHI_FILE_TIMES=times.jsonl vitest run --project pilot \
 *     --reporter=dot --reporter=./tooling/vitest/file-times-reporter.ts
 *
 * Each line: `{ file, project, state, startedMs, endedMs, setupMs, collectMs, prepareMs, testsMs,
 * environmentMs }`, milliseconds; `endedMs - startedMs` is the wall time the file held its worker
 * (from when its worker began it, before the setup file and its imports, until it reported back).
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/** Writes the per-file times to the file named by `CHI_FILE_TIMES` (nothing without it). */
export default class FileTimesReporter implements Reporter {
  // biome-ignore lint/suspicious/noUndeclaredEnvVars: a measuring switch, not a turbo task input
  private readonly path = process.env.CHI_FILE_TIMES;
  private readonly started = new Map<string, number>();

  onTestRunStart(): void {
    if (this.path !== undefined) writeFileSync(this.path, '');
  }

  onTestModuleQueued(testModule: TestModule): void {
    this.started.set(testModule.moduleId, Date.now());
  }

  onTestModuleEnd(testModule: TestModule): void {
    if (this.path === undefined) return;
    const diagnostic = testModule.diagnostic();
    const line = {
      file: relative(process.cwd(), testModule.moduleId),
      project: testModule.project.name,
      state: testModule.state(),
      startedMs: this.started.get(testModule.moduleId) ?? null,
      endedMs: Date.now(),
      setupMs: Math.round(diagnostic.setupDuration),
      collectMs: Math.round(diagnostic.collectDuration),
      prepareMs: Math.round(diagnostic.prepareDuration),
      environmentMs: Math.round(diagnostic.environmentSetupDuration),
      testsMs: Math.round(diagnostic.duration),
    };
    appendFileSync(this.path, `${JSON.stringify(line)}\n`);
  }
}
