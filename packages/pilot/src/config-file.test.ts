import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunConfigurationSchema } from '@chi/spec';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PilotCommand, parseCli } from './cli-args';
import { settingsFor } from './cli-main';
import { pilotConfigArgs, readPilotConfigFile, runConfigurationOf } from './config-file';
import { PILOT_CONFIG_SCHEMA_SPECIFIER, starterConfig, writeStarterConfig } from './init-config';

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'chi-config-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function configFile(name: string, content: unknown): string {
  const path = join(root, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

/** `chi pilot` parsed from a config file and a command line, as runCli does it. */
function resolved(path: string, commandLine: string[]) {
  const loaded = readPilotConfigFile(path);
  return parseCli([
    'pilot',
    ...pilotConfigArgs(loaded, commandLine),
    ...commandLine,
  ]) as PilotCommand;
}

describe('chi pilot --config', () => {
  it('reads every option from the file', () => {
    const path = configFile('all.json', {
      systems: ['perfect', 'abstainer'],
      replicates: 3,
      loads: [32, 64],
      batchSize: 16,
      controls: false,
      transcriptReplay: true,
      probeWordings: true,
      history: false,
      behavior: false,
      ceilingUsd: 2.5,
      smokeCeilingUsd: 0.5,
      allowFailedSmoke: true,
      concurrency: 2,
      out: 'runs/x',
      seed: 7,
      resamples: 99,
      release: false,
      calibration: 'cal/c.json',
    });
    expect(resolved(path, ['--config', path])).toEqual({
      command: 'pilot',
      live: false,
      plan: false,
      resume: null,
      systems: ['perfect', 'abstainer'],
      models: null,
      baseUrl: null,
      replicates: 3,
      loads: [32, 64],
      batchSize: 16,
      controls: false,
      transcriptReplay: true,
      probeWordings: true,
      history: false,
      behavior: false,
      templates: null,
      ceilingUsd: 2.5,
      smokeCeilingUsd: 0.5,
      concurrency: 2,
      out: join(root, 'runs', 'x'),
      seed: 7,
      resamples: 99,
      release: false,
      allowFailedSmoke: true,
      config: path,
      calibration: join(root, 'cal', 'c.json'),
      prices: [],
      pricesFile: null,
      acceptUnboundedSpend: false,
    });
  });

  it('passes declared prices and the unbounded-spend acknowledgement on as flags', () => {
    const path = configFile('prices.json', {
      baseUrl: 'http://127.0.0.1:8000/v1',
      models: ['m'],
      prices: { m: { inputUsdPerMillionTokens: 1, outputUsdPerMillionTokens: 2 } },
      acceptUnboundedSpend: true,
    });
    expect(resolved(path, ['--config', path])).toMatchObject({
      prices: [
        { model: 'm', price: { inputUsdPerToken: 1e-6, outputUsdPerToken: 2e-6, requestUsd: 0 } },
      ],
      acceptUnboundedSpend: true,
    });
  });

  it('lets command-line flags win over the file, and a roster flag replace the file roster', () => {
    const path = configFile('live.json', {
      models: ['moonshotai/kimi-k3@moonshotai/mxfp4'],
      ceilingUsd: 10,
      replicates: 3,
      loads: 'v0.1',
    });
    const flags = resolved(path, ['--config', path, '--replicates', '1', '--ceiling-usd=4']);
    expect(flags).toMatchObject({
      live: true,
      models: [{ model: 'moonshotai/kimi-k3', providers: ['moonshotai/mxfp4'] }],
      replicates: 1,
      ceilingUsd: 4,
      loads: [100, 300, 1000, 3000, 10000],
    });
    const roster = resolved(path, ['--config', path, '--systems', 'perfect']);
    expect(roster).toMatchObject({
      live: false,
      models: null,
      systems: ['perfect'],
      ceilingUsd: 10,
    });
  });

  it('runs the templates the file names, as --templates does, and the command line wins', () => {
    const path = configFile('templates.json', { systems: ['perfect'], templates: ['history'] });
    expect(pilotConfigArgs(readPilotConfigFile(path), [])).toEqual([
      '--systems=perfect',
      '--templates=history',
    ]);
    expect(resolved(path, ['--config', path])).toMatchObject({
      templates: ['history'],
      loads: [],
      history: true,
      behavior: false,
    });
    expect(resolved(path, ['--config', path, '--templates', 'behavior'])).toMatchObject({
      templates: ['behavior'],
      history: false,
      behavior: true,
    });
  });

  it('refuses an unknown template in the file, naming the file and the field', () => {
    const path = configFile('typo.json', { templates: ['history', 'memroy'] });
    expect(() => readPilotConfigFile(path)).toThrow(
      /^--config: .*typo\.json: templates: unknown template "memroy"; registered: memory, history, behavior \(chi templates lists them\)$/,
    );
    const empty = configFile('none.json', { templates: [] });
    expect(() => readPilotConfigFile(empty)).toThrow(/none\.json: templates: /);
  });

  it('names the file and every wrong field, and refuses what is not JSON or not there', () => {
    const bad = configFile('bad.json', { replicates: 0, loads: 'v9', colour: 'red' });
    expect(() => readPilotConfigFile(bad)).toThrow(
      /^--config: .*bad\.json: replicates: expected replicates >= 1; loads: .*; \(top level\): Unrecognized key: "colour"$/,
    );
    const comments = configFile('comments.json', '{ // no\n "replicates": 2 }');
    expect(() => readPilotConfigFile(comments)).toThrow(
      /comments\.json is not valid JSON .*comments belong in "\$comment"/,
    );
    expect(() => readPilotConfigFile(join(root, 'absent.json'))).toThrow(
      /^--config: cannot read .*absent\.json \(no such file\); `chi init` writes a starter file$/,
    );
  });
});

describe('chi init', () => {
  it('writes a starter file that the published JSON Schema and the zod schema accept, at every default', () => {
    const path = join(root, 'chi.config.json');
    writeStarterConfig(path, false);
    const text = readFileSync(path, 'utf8');
    const json = JSON.parse(text) as { $schema: string };
    const schemaPath = createRequire(import.meta.url).resolve(PILOT_CONFIG_SCHEMA_SPECIFIER);
    // `$schema` points at the installed schema file, relative to the config file.
    expect(join(root, json.$schema)).toBe(schemaPath);
    const ajv = new Ajv2020({ strict: false });
    const validate = ajv.compile(JSON.parse(readFileSync(schemaPath, 'utf8')) as object);
    expect(validate(json)).toBe(true);
    expect(validate({ ...json, replicates: 0 })).toBe(false);
    // Every option at its default: the settings of a bare `chi pilot`.
    const fromFile = resolved(path, ['--config', path]);
    expect(settingsFor(fromFile)).toEqual(settingsFor(parseCli(['pilot']) as PilotCommand));
    expect(fromFile).toMatchObject({ ceilingUsd: 0, systems: starterConfig('x').systems });
    expect(() => writeStarterConfig(path, false)).toThrow(/already exists; pass --force/);
    writeStarterConfig(path, true);
  });
});

describe('the resolved configuration of a run without the memory experiment', () => {
  it('records no loads, so `chi pilot --templates behavior` freezes a valid manifest', () => {
    const command = parseCli(['pilot', '--templates', 'behavior']) as PilotCommand;
    const configuration = runConfigurationOf(command, settingsFor(command), null);
    expect(configuration.options.loads).toBeUndefined();
    expect(RunConfigurationSchema.safeParse(configuration).success).toBe(true);
  });
});
