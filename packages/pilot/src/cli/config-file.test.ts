import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunManifest, RunPlan } from '@chi/spec';
import { RunConfigurationSchema } from '@chi/spec/internal';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureIo } from '../__fixtures__/cli-io';
import { PILOT_EXPERIMENT_FLAGS, type PilotCommand, parseCli } from './cli-args';
import { runCli, settingsFor } from './cli-main';
import {
  pilotConfigArgs,
  pilotConfigSchema,
  readPilotConfigFile,
  runConfigurationOf,
} from './config-file';
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
      evidenceClass: null,
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
      /^\/.*typo\.json: templates: unknown template "memroy"; did you mean memory\?; registered: memory, history, behavior, goal-persistence, feedback-valence \(chi templates lists them\)$/,
    );
    const empty = configFile('none.json', { templates: [] });
    expect(() => readPilotConfigFile(empty)).toThrow(/none\.json: templates: /);
  });

  it('names the file and every wrong field, and refuses what is not JSON or not there', () => {
    const bad = configFile('bad.json', { replicates: 0, loads: 'v9', colour: 'red' });
    expect(() => readPilotConfigFile(bad)).toThrow(
      /^\/.*bad\.json: replicates: expected replicates >= 1; loads: .*; colour: unknown key$/,
    );
    const comments = configFile('comments.json', '{ // no\n "replicates": 2 }');
    expect(() => readPilotConfigFile(comments)).toThrow(
      /comments\.json: not valid JSON .*comments belong in "\$comment"/,
    );
    expect(() => readPilotConfigFile(join(root, 'absent.json'))).toThrow(
      /^--config: cannot read .*absent\.json \(no such file\); `chi init` writes a starter file$/,
    );
  });
});

describe('experiment options from a configuration file, end to end (settings.experimentOptions)', () => {
  const options = { systems: ['perfect'], replicates: 1, resamples: 20, release: false };
  const run = async (name: string, config: Record<string, unknown>, extra: string[] = []) => {
    const path = configFile(`${name}.json`, { ...options, out: name, ...config });
    const cli = captureIo({ cwd: root });
    const code = await runCli(['pilot', '--config', path, ...extra], cli.io);
    return { code, err: cli.err(), dir: join(root, name) };
  };
  const read = <T>(dir: string, file: string) =>
    JSON.parse(readFileSync(join(dir, file), 'utf8')) as T;
  const stepsPerTrial = (plan: RunPlan) =>
    Math.max(...plan.requests.map((r) => Number(/\.s(\d+)$/.exec(r.step)?.[1] ?? 0)));

  it('goalSteps and valenceChoices reach the frozen manifest and change the plan', async () => {
    const changed = await run('options-set', {
      templates: ['goal-persistence', 'feedback-valence'],
      goalSteps: 6,
      valenceChoices: 2,
    });
    expect(changed.code, changed.err).toBe(0);
    const manifest = read<RunManifest>(changed.dir, 'manifest.json');
    expect(manifest.experiments['goal-persistence']?.steps).toBe(6);
    expect(manifest.experiments['feedback-valence']?.choices).toBe(2);
    expect(manifest.configuration?.options).toMatchObject({ goalSteps: 6, valenceChoices: 2 });
    const plan = read<RunPlan>(changed.dir, 'plan.json');
    // three trials of six steps, and the valence choice prompt asks two choices
    expect(plan.requests.filter((r) => r.task === 'goal_step')).toHaveLength(3 * 6);
    expect(stepsPerTrial(plan)).toBe(6);
    const defaults = await run('options-default', {
      templates: ['goal-persistence', 'feedback-valence'],
    });
    expect(defaults.code, defaults.err).toBe(0);
    const plain = read<RunManifest>(defaults.dir, 'manifest.json');
    expect(plain.experiments['goal-persistence']?.steps).toBe(4);
    expect(plain.experiments['feedback-valence']?.choices).toBe(4);
    expect(plain.configuration?.options).not.toHaveProperty('goalSteps');
    expect(stepsPerTrial(read<RunPlan>(defaults.dir, 'plan.json'))).toBe(4);
    // the command line wins over the file
    const overridden = await run(
      'options-overridden',
      { templates: ['goal-persistence'], goalSteps: 6 },
      ['--goal-steps', '3'],
    );
    expect(overridden.code, overridden.err).toBe(0);
    expect(
      read<RunManifest>(overridden.dir, 'manifest.json').experiments['goal-persistence']?.steps,
    ).toBe(3);
  });

  it('a bad value is a usage error (exit 2) naming the field; so is an option of a left-out experiment', async () => {
    const high = await run('options-bad', { templates: ['goal-persistence'], goalSteps: 9 });
    expect(high.code).toBe(2);
    expect(high.err).toMatch(
      /options-bad\.json: goalSteps: expected goal-persistence steps in 2-8/,
    );
    const text = await run('options-text', {
      templates: ['feedback-valence'],
      valenceChoices: 'many',
    });
    expect(text.code).toBe(2);
    expect(text.err).toMatch(/valenceChoices: expected an integer \(feedback-valence choices\)/);
    const flag = await run('options-flag', { templates: ['goal-persistence'] }, [
      '--goal-steps',
      '1',
    ]);
    expect(flag.code).toBe(2);
    expect(flag.err).toContain('--goal-steps: expected an integer in 2-8, found "1"');
    const leftOut = await run('options-left-out', { goalSteps: 5 });
    expect(leftOut.code).toBe(2);
    expect(leftOut.err).toContain(
      'goalSteps (/', // the file's key, never a flag the user did not type
    );
    expect(leftOut.err).toMatch(
      /goalSteps \(.*options-left-out\.json\) sets the goal-persistence experiment, which the run leaves out \(name it in --templates\)/,
    );
    expect(leftOut.err).not.toContain('--goal-steps');
    expect(high.err + text.err + flag.err + leftOut.err).not.toMatch(/\n\s+at /);
  });
});

describe('configuration errors name the file and the key, never a flag the user did not type', () => {
  const run = async (name: string, config: unknown, extra: string[] = []) => {
    configFile(`${name}.json`, config);
    const cli = captureIo({ cwd: root });
    const code = await runCli(['pilot', '--config', `${name}.json`, ...extra], cli.io);
    return { code, err: cli.err() };
  };

  it('suggests the key for a misspelt one (exit 2)', async () => {
    const typo = await run('key-typo', { sytems: ['perfect'], replicate: 2 });
    expect(typo.code).toBe(2);
    expect(typo.err).toBe(
      'chi: key-typo.json: sytems: unknown key; did you mean systems?; replicate: unknown key; did you mean replicates?\n',
    );
  });

  it('names the key and its array index as the file spells them', async () => {
    const bad = await run('key-index', { models: ['a@b', 'bad model'] });
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/^chi: key-index\.json: models\[1\]: expected "model"/);
  });

  it('words a value the flag parser refuses as the file key', async () => {
    const range = await run('key-range', { replicates: 1000 });
    expect(range.code).toBe(2);
    expect(range.err).toBe(
      'chi: key-range.json: replicates: expected an integer in 1-100, found "1000"\n',
    );
    const system = await run('key-system', { systems: ['perfect', 'perfekt'], replicates: 1 });
    expect(system.code).toBe(2);
    expect(system.err).toMatch(
      /^chi: key-system\.json: systems: unknown scripted system "perfekt"/,
    );
    // the command line's own flag keeps its name
    const typed = await run('key-typed', { replicates: 2 }, ['--replicates', '1000']);
    expect(typed.err).toContain('--replicates: expected an integer in 1-100');
    for (const err of [range.err, system.err]) expect(err).not.toMatch(/--(replicates|systems)/);
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

describe('a built-in experiment’s flag is a configuration field without a line in @chi/spec', () => {
  const flag = {
    flag: 'tally-items',
    option: 'tallyItems',
    kind: 'integer',
    placeholder: 'N',
    help: 'tokens per tally world',
    range: { min: 1, max: 20 },
  } as const;

  it('accepts the option its module declares, in the flag’s range, and refuses it without the flag', () => {
    const withFlag = pilotConfigSchema([...PILOT_EXPERIMENT_FLAGS, flag]);
    expect(withFlag.safeParse({ tallyItems: 3 }).success).toBe(true);
    expect(withFlag.safeParse({ tallyItems: 21 }).success).toBe(false);
    const without = pilotConfigSchema(PILOT_EXPERIMENT_FLAGS).safeParse({ tallyItems: 3 });
    expect(without.error?.issues[0]?.code).toBe('unrecognized_keys');
    // the fields the published schema names keep its own validation
    expect(Object.keys(withFlag.shape)).toEqual(
      expect.arrayContaining(['goalSteps', 'valenceChoices', 'tallyItems']),
    );
  });
});
