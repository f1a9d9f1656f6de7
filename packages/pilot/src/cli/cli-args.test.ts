import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCli } from './cli-args';
import { COMMAND_USAGE } from './cli-help';

describe('parseCli', () => {
  it('parses the offline pilot with defaults', () => {
    expect(parseCli(['pilot'])).toMatchObject({
      command: 'pilot',
      live: false,
      plan: false,
      resume: null,
      systems: null,
      controls: true,
      history: true,
      behavior: true,
      release: true,
    });
  });

  it('parses options into typed values', () => {
    expect(
      parseCli([
        'pilot',
        '--systems',
        'perfect,abstainer',
        '--replicates',
        '2',
        '--loads',
        '32,64',
        '--batch-size',
        '12',
        '--no-history',
        '--concurrency',
        '3',
        '--out',
        'x',
        '--seed',
        '7',
      ]),
    ).toMatchObject({
      systems: ['perfect', 'abstainer'],
      replicates: 2,
      loads: [32, 64],
      batchSize: 12,
      history: false,
      concurrency: 3,
      out: 'x',
      seed: 7,
    });
    expect(parseCli(['pilot', '--loads', 'v0.1'])).toMatchObject({
      loads: [100, 300, 1000, 3000, 10000],
    });
  });

  it('parses live models with provider allowlists', () => {
    expect(
      parseCli([
        'pilot',
        '--models',
        'moonshotai/kimi-k3@moonshotai/mxfp4,x-ai/grok-4.6@xai',
        '--ceiling-usd',
        '12.5',
      ]),
    ).toMatchObject({
      live: true,
      ceilingUsd: 12.5,
      models: [
        { model: 'moonshotai/kimi-k3', providers: ['moonshotai/mxfp4'] },
        { model: 'x-ai/grok-4.6', providers: ['xai'] },
      ],
    });
    expect(
      parseCli(['pilot', '--base-url', 'http://127.0.0.1:8000/v1', '--models', 'local-model']),
    ).toMatchObject({
      live: false,
      baseUrl: 'http://127.0.0.1:8000/v1',
      models: [{ model: 'local-model', providers: [] }],
    });
  });

  it.each([
    [['pilot', '--replicates', '0'], '--replicates: expected an integer in 1-100, found "0"'],
    [['pilot', '--replicates', 'two'], '--replicates: expected an integer in 1-100, found "two"'],
    [
      ['pilot', '--ceiling-usd=-3'],
      '--ceiling-usd: expected a USD amount in 0-100000 like 25 or 12.50, found "-3"',
    ],
    [['pilot', '--loads', '32,x'], '--loads: expected an integer in 1-10000, found "x"'],
    [
      ['pilot', '--models', 'x-ai/grok-4.6'],
      '--models: x-ai/grok-4.6 needs a provider allowlist, e.g. x-ai/grok-4.6@provider (no fallback to other providers)',
    ],
    [
      ['pilot', '--base-url', 'ftp://x'],
      '--base-url: expected an http(s) URL like http://127.0.0.1:8000/v1, found "ftp://x"',
    ],
    [
      ['pilot', '--base-url', 'http://127.0.0.1:1/v1'],
      "chi pilot: --base-url needs --models naming the endpoint's model(s)",
    ],
    [
      ['pilot', '--systems', 'perfect', '--live'],
      'chi pilot: --systems (scripted) cannot be combined with --live, --models or --base-url',
    ],
    [
      ['pilot', '--resume', 'd', '--replicates', '3'],
      "chi pilot --resume: the run's manifest is frozen; remove --replicates (only --concurrency and --no-release apply)",
    ],
    [
      ['pilot', '--bogus'],
      'chi pilot: unknown option --bogus (chi pilot --help lists the options)',
    ],
    [
      ['serve', '--port', '80'],
      'chi serve: --system NAME is required (perfect, capacity-keeper, latest-wins, confabulator, abstainer)',
    ],
    [
      ['serve', '--system', 'perfect', '--port', '99999'],
      '--port: expected an integer in 0-65535, found "99999"',
    ],
    [
      ['serve', '--system', 'perfect', '--port', '1', '--host', '0.0.0.0'],
      'chi serve: --host must be a loopback address (127.0.0.1, ::1, localhost), found "0.0.0.0"',
    ],
    [['calibrate'], 'chi calibrate: expected one human-data file, found 0'],
    [
      ['pilot', '--resume', 'd', '--calibration', 'c.json'],
      "chi pilot --resume: the run's manifest is frozen; remove --calibration (only --concurrency and --no-release apply)",
    ],
    [
      ['frobnicate'],
      'chi: unknown command "frobnicate"; expected pilot, smoke, serve, score, verify, init, export, calibrate, view, templates, merge, study or help',
    ],
  ])('rejects %j with a one-line message', (argv, message) => {
    let thrown: unknown;
    try {
      parseCli(argv);
    } catch (error) {
      thrown = error;
    }
    expect((thrown as Error).name).toBe('UsageError');
    expect((thrown as Error).message).toBe(message);
    expect((thrown as Error).message).not.toContain('\n');
  });

  it('parses the other commands', () => {
    expect(parseCli(['serve', '--system', 'perfect', '--port', '0'])).toEqual({
      command: 'serve',
      system: 'perfect',
      port: 0,
      host: '127.0.0.1',
      seed: null,
    });
    expect(parseCli(['smoke'])).toMatchObject({ command: 'smoke', models: null, ceilingUsd: 1 });
    expect(parseCli(['score', 'dir'])).toEqual({ command: 'score', runDir: 'dir', release: true });
    expect(parseCli(['verify', 'rel', '--json'])).toEqual({
      command: 'verify',
      argv: ['rel', '--json'],
    });
    expect(parseCli([])).toEqual({ command: 'help' });
    expect(parseCli(['calibrate', 'h.jsonl', '--out', 'c.json'])).toEqual({
      command: 'calibrate',
      data: 'h.jsonl',
      out: 'c.json',
    });
    expect(parseCli(['pilot', '--calibration', 'c.json'])).toMatchObject({ calibration: 'c.json' });
    expect(parseCli(['pilot'])).toMatchObject({ calibration: null });
  });

  it('parses chi view with its defaults, a port and a bundle', () => {
    expect(parseCli(['view'])).toEqual({
      command: 'view',
      dir: '.',
      compare: null,
      port: 0,
      bundle: null,
    });
    expect(parseCli(['view', 'run', '--port', '8123', '--bundle', 'out'])).toEqual({
      command: 'view',
      dir: 'run',
      compare: null,
      port: 8123,
      bundle: 'out',
    });
    // two runs: compared side by side, paired by world
    expect(parseCli(['view', 'a', 'b'])).toMatchObject({ dir: 'a', compare: 'b' });
    expect(() => parseCli(['view', 'a', 'b', 'c'])).toThrow(
      'chi view: expected one DIR, or two runs to compare, found 3 arguments',
    );
    // two runs as a static comparison (view-cli writes it)
    expect(parseCli(['view', 'a', 'b', '--bundle', 'out'])).toMatchObject({
      dir: 'a',
      compare: 'b',
      bundle: 'out',
    });
    expect(() => parseCli(['view', '--port', '70000'])).toThrow(
      '--port: expected an integer in 0-65535',
    );
  });
});

describe('chi serve options', () => {
  it('say in serve --help and the README that a scripted system answers only our prompts (422)', () => {
    const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
    for (const text of [COMMAND_USAGE.serve, readme.replace(/\s+/g, ' ')]) {
      expect(text).toMatch(/answers only this toolkit's\s+prompts/);
      expect(text).toMatch(/422\s+`?unreadable_prompt/);
    }
    expect(COMMAND_USAGE.serve).toContain(
      '--port P                 port, 0-65535 (default 0: a free port',
    );
  });

  it('defaults --port to 0 (a free port)', () => {
    expect(parseCli(['serve', '--system', 'perfect'])).toMatchObject({
      port: 0,
      host: '127.0.0.1',
    });
  });

  it('gives a bad --system or --host its own message, never a port error', () => {
    const messageOf = (argv: readonly string[]) => {
      try {
        parseCli(argv);
      } catch (error) {
        return (error as Error).message;
      }
      return '';
    };
    const system = messageOf(['serve', '--system', 'perfekt']);
    expect(system).toMatch(
      /^chi serve: --system: unknown scripted system "perfekt"; did you mean perfect\?/,
    );
    const host = messageOf(['serve', '--system', 'perfect', '--host', '0.0.0.0']);
    expect(host).toMatch(/^chi serve: --host must be a loopback address/);
    for (const message of [system, host]) expect(message).not.toContain('port');
  });
});
