import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { RUN_FILE_NAME } from '@chi/run/internal';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { captureIo } from '../__fixtures__/cli-io';
import { runCli } from './cli-main';

// Every open of a file through node:fs/promises (the toolkit's chunked line reader, which every
// streamed pass over the attempt log uses) is noted, so a test counts the log's whole passes.
const opened = vi.hoisted(() => ({ paths: [] as string[] }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  const open: typeof real.open = (path, ...rest) => {
    opened.paths.push(String(path));
    return real.open(path, ...rest);
  };
  return { ...real, default: { ...real, open }, open };
});

let root: string;
let runDir: string;
const chisFiles = (): Record<string, string> =>
  Object.fromEntries(
    readdirSync(join(runDir, 'chis')).map((name) => [
      name,
      readFileSync(join(runDir, 'chis', name), 'utf8'),
    ]),
  );

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'chi-score-passes-'));
  runDir = join(root, 'run');
  const cli = captureIo({ cwd: root });
  const args = ['pilot', '--systems', 'perfect,abstainer', '--replicates', '2', '--loads', '32'];
  const small = ['--no-behavior', '--resamples', '50', '--no-release', '--out', runDir];
  expect(await runCli([...args, ...small], cli.io)).toBe(0);
}, 300_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('chi score reads the attempt log', () => {
  it('in two streamed passes before the release (request records with CHIS results, then the integrity check), writing the same CHIS entries', async () => {
    const before = chisFiles();
    expect(Object.keys(before).length).toBeGreaterThan(0);
    opened.paths.length = 0;
    const score = captureIo({ cwd: root });
    expect(await runCli(['score', runDir, '--no-release'], score.io)).toBe(0);
    const logOpens = opened.paths.filter((path) => basename(path) === RUN_FILE_NAME.attempts);
    // Before issue 38's cut: three (the CHIS entries' results streamed the log once more).
    expect(logOpens).toHaveLength(2);
    expect(chisFiles()).toEqual(before);
  }, 300_000);
});
