import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureIo } from '../__fixtures__/cli-io';
import { OPTION_RANGES, parseCli } from './cli-args';
import { runCli } from './cli-main';
import { UsageError } from './usage-error';

const root = mkdtempSync(join(tmpdir(), 'chi-bad-input-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const io = () => captureIo({ cwd: root });

function usageMessage(argv: readonly string[]): string {
  try {
    parseCli(argv);
  } catch (error) {
    expect(UsageError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error(`${argv.join(' ')} was accepted`);
}

describe('numeric options have a documented range and a usage error outside it', () => {
  it('refuses out-of-range, huge, negative and non-integer values with the range in the message', () => {
    expect(usageMessage(['pilot', '--replicates', '99999999999999999999999'])).toBe(
      '--replicates: expected an integer in 1-100, found "99999999999999999999999"',
    );
    expect(usageMessage(['pilot', '--replicates', '0'])).toBe(
      '--replicates: expected an integer in 1-100, found "0"',
    );
    expect(usageMessage(['pilot', '--replicates', '-1'])).toBe(
      'chi pilot: --replicates: expected a value in 1-100, found an argument starting with "-" (negative numbers are out of range)',
    );
    expect(usageMessage(['pilot', '--concurrency', '1e30'])).toBe(
      '--concurrency: expected an integer in 1-64, found "1e30"',
    );
    expect(usageMessage(['pilot', '--concurrency', '65'])).toMatch(/in 1-64/);
    expect(usageMessage(['pilot', '--loads', '32,10001'])).toMatch(
      /--loads: expected an integer in 1-10000/,
    );
    expect(usageMessage(['pilot', '--seed', '4294967296'])).toMatch(
      /--seed: expected an integer in 0-4294967295/,
    );
    expect(usageMessage(['pilot', '--resamples', '100001'])).toMatch(/in 1-100000/);
    expect(usageMessage(['pilot', '--batch-size', '0'])).toMatch(/in 1-10000/);
    expect(usageMessage(['pilot', '--ceiling-usd', '1e9'])).toMatch(/in 0-100000/);
    expect(usageMessage(['pilot', '--ceiling-usd', '100001'])).toMatch(/in 0-100000/);
    expect(usageMessage(['serve', '--system', 'perfect', '--port', '65536'])).toMatch(/in 0-65535/);
  });

  it('accepts both ends of every range', () => {
    expect(parseCli(['pilot', '--replicates', '100', '--concurrency', '64'])).toMatchObject({
      replicates: 100,
      concurrency: 64,
    });
    expect(
      parseCli(['pilot', '--replicates', '1', '--seed', '0', '--ceiling-usd', '0']),
    ).toMatchObject({
      replicates: 1,
      seed: 0,
      ceilingUsd: 0,
    });
  });

  it('documents every range in the usage text', async () => {
    const cli = io();
    await runCli(['help'], cli.io);
    for (const [name, { min, max }] of Object.entries(OPTION_RANGES)) {
      if (name === 'port') continue; // chi serve's option, in its own error message
      const line = cli
        .out()
        .split('\n')
        .find((text) => text.trimStart().startsWith(`--${name} `));
      expect(line, name).toContain(`${min}-${max}`);
    }
  });

  it('the largest --replicates still plans quickly (exit 0)', async () => {
    const cli = io();
    expect(
      await runCli(
        [
          'pilot',
          '--plan',
          '--replicates',
          String(OPTION_RANGES.replicates.max),
          '--systems',
          'perfect',
        ],
        cli.io,
      ),
    ).toBe(0);
    expect(cli.out()).toContain('total');
  });

  it('exits 2 for these through the CLI', async () => {
    for (const argv of [
      ['pilot', '--replicates', '99999999999999999999999'],
      ['pilot', '--concurrency', '1e30'],
      ['pilot', '--replicates', '-1'],
    ])
      expect(await runCli(argv, io().io)).toBe(2);
  });
});

describe('an unusable --out fails fast', () => {
  it('--out /proc/x: a clear usage error, no spinning', async () => {
    const cli = io();
    expect(
      await runCli(
        ['pilot', '--systems', 'perfect', '--replicates', '1', '--loads', '32', '--out', '/proc/x'],
        cli.io,
      ),
    ).toBe(2);
    expect(cli.err()).toContain('cannot create /proc/x');
  });

  it('--out under a file: names the file', async () => {
    const file = join(root, 'a-file');
    writeFileSync(file, 'x');
    const cli = io();
    expect(
      await runCli(['pilot', '--systems', 'perfect', '--out', join(file, 'run')], cli.io),
    ).toBe(2);
    expect(cli.err()).toContain(`${file} exists and is not a directory`);
  });
});

describe('corrupt run files name the file and exit 5 (damaged run)', () => {
  const pristine = join(root, 'pristine');
  beforeAll(async () => {
    const cli = io();
    const argv = [
      'pilot',
      '--systems',
      'perfect',
      '--replicates',
      '1',
      '--loads',
      '32',
      '--no-controls',
      '--no-history',
      '--no-behavior',
      '--no-release',
      '--out',
      pristine,
    ];
    expect(await runCli(argv, cli.io), cli.err()).toBe(0);
  });

  it('a corrupt status.json', async () => {
    const dir = join(root, 'corrupt-status');
    cpSync(pristine, dir, { recursive: true });
    writeFileSync(join(dir, 'status.json'), '{"kind": "run-status", "runId": "unterminated');
    const cli = io();
    expect(await runCli(['pilot', '--resume', dir], cli.io)).toBe(5);
    expect(cli.err()).toContain(`damaged run folder: ${join(dir, 'status.json')}: not JSON`);
  });

  it('a corrupt failures.jsonl', async () => {
    const dir = join(root, 'corrupt-failures');
    cpSync(pristine, dir, { recursive: true });
    writeFileSync(join(dir, 'failures.jsonl'), '{"kind": broken\n{"kind":"failure"}\n');
    const resumed = io();
    expect(await runCli(['pilot', '--resume', dir], resumed.io)).toBe(5);
    expect(resumed.err()).toContain('failures.jsonl');
    const scored = io();
    expect(await runCli(['score', dir], scored.io)).toBe(5);
    expect(scored.err()).toContain('line 1 of failures.jsonl');
    expect(readFileSync(join(dir, 'failures.jsonl'), 'utf8')).toContain('broken');
  });
});
