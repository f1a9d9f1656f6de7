import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { workspaceFilesOf } from '../../../../tooling/vitest/module-graph';
import { captureIo } from '../__fixtures__/cli-io';
import { testFolder } from '../__fixtures__/test-folder';
import { runChi } from './chi-entry';
import { runCli } from './cli-main';

const REPORT_MAIN = 'packages/report/src/index.ts';
const source = (file: string) => fileURLToPath(new URL(file, import.meta.url));

/**
 * The URLs of every module `chi <args>` loads, from its sources under tsx (not a bundle: a bundle
 * is one module), recorded by a loader hook (`__fixtures__/record-loads.mjs`).
 */
function modulesLoadedBy(args: readonly string[]): { stdout: string; loaded: string[] } {
  const folder = testFolder('cli-quick-');
  const log = join(folder, 'loaded.txt');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TMPDIR: folder, // tsx's cache
    CHI_RECORD_LOADS: log,
    TSX_TSCONFIG_PATH: source('../../tsconfig.json'),
    NO_COLOR: '1',
  };
  delete env.OPENROUTER_API_KEY;
  const child = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--import',
      source('../__fixtures__/record-loads.mjs'),
      source('../cli.ts'),
      ...args,
    ],
    { env, encoding: 'utf8' },
  );
  expect(child.stderr).toBe('');
  expect(child.status).toBe(0);
  return { stdout: child.stdout, loaded: readFileSync(log, 'utf8').split('\n').filter(Boolean) };
}

describe('chi --help, version and templates answer from a small module graph', () => {
  it('chi --help loads neither runCli nor @chi/report nor a chart library', () => {
    const { stdout, loaded } = modulesLoadedBy(['--help']);
    expect(stdout).toContain('chi pilot');
    // the hook sees the sources (the check below can see what it looks for)
    expect(loaded.some((url) => url.endsWith('/packages/pilot/src/cli/cli-quick.ts'))).toBe(true);
    expect(loaded.some((url) => url.endsWith('/packages/report/src/viewer.ts'))).toBe(true);
    const heavy = loaded.filter(
      (url) =>
        url.endsWith(`/${REPORT_MAIN}`) ||
        url.endsWith('/packages/pilot/src/cli/cli-main.ts') ||
        /\/node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?vega(?:-lite)?\//.test(url),
    );
    expect(heavy).toEqual([]);
  });

  it("cli-quick.ts's static graph does not reach @chi/report's main entry; cli-main.ts's does", () => {
    expect(workspaceFilesOf(source('./cli-quick.ts')).get(REPORT_MAIN)).toBeUndefined();
    expect(workspaceFilesOf(source('../cli.ts')).get(REPORT_MAIN)).toBeUndefined();
    expect(workspaceFilesOf(source('./chi-entry.ts')).get(REPORT_MAIN)).toBeUndefined();
    expect(workspaceFilesOf(source('./cli-main.ts')).get(REPORT_MAIN)).toBeDefined();
  });

  it.each([[['--help']], [['pilot', '--help']], [['version']], [['--version']], [['templates']]])(
    'chi %j prints what runCli prints',
    async (argv) => {
      const quick = captureIo({ cwd: process.cwd() });
      const full = captureIo({ cwd: process.cwd() });
      expect(await runChi(argv, quick.io)).toBe(0);
      expect(await runCli(argv, full.io)).toBe(0);
      expect(quick.out()).toBe(full.out());
      expect(quick.out()).not.toBe('');
    },
  );

  it('hands every other command line to runCli, usage errors included', async () => {
    const quick = captureIo({ cwd: process.cwd() });
    const full = captureIo({ cwd: process.cwd() });
    expect(await runChi(['pilot', '--no-such-flag'], quick.io)).toBe(2);
    expect(await runCli(['pilot', '--no-such-flag'], full.io)).toBe(2);
    expect(quick.err()).toBe(full.err());
    expect(quick.err()).toContain('--no-such-flag');
  });
});
