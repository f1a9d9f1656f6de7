import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { feedbackValence, goalPersistence } from '@chi/experiments';
import type { RunManifest } from '@chi/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureIo } from '../__fixtures__/cli-io';
import { runCli } from '../cli/cli-main';
import { loadPromptTemplates, parsePromptTemplate } from '../prompts';
import { prepareRun } from '../run-folder/run-create';
import { scriptedSystemSpec } from '../scripted/scripted-systems';
import { defaultOfflineSettings } from '../settings';
import { checkExperimentContract } from './contract';
import { withDeclaredTemplates } from './declared-templates';
import { PILOT_EXPERIMENTS, REGISTERED_EXPERIMENTS } from './registry';

const fixed = () => new Date('2026-09-01T00:00:00.000Z');
const OPT_IN_TEMPLATES = ['goal-step', 'valence-choice', 'valence-feedback'];
const GOAL_STEP_TEMPLATE = 'goal-step';
const goalPersistenceExperiment = goalPersistence.experiment;
const feedbackValenceExperiment = feedbackValence.experiment;
/** The templates a run may freeze: the pilot's packaged files and the built-in folders' own. */
const allTemplates = () => withDeclaredTemplates(loadPromptTemplates(), REGISTERED_EXPERIMENTS);

const promptNames = (templates?: string[]) =>
  prepareRun({
    settings: defaultOfflineSettings(templates === undefined ? {} : { templates }),
    now: fixed,
  }).frozen.manifest.prompts.map((ref) => ref.name);

describe('the opt-in environments freeze their templates when, and only when, the run includes them', () => {
  it('the default run freezes none of them', () => {
    const names = promptNames();
    for (const name of OPT_IN_TEMPLATES) expect(names).not.toContain(name);
  });

  it('a goal-persistence run freezes goal-step, a feedback-valence run its two templates', () => {
    expect(promptNames(['goal-persistence'])).toContain('goal-step');
    expect(promptNames(['goal-persistence'])).not.toContain('valence-choice');
    const valence = promptNames(['feedback-valence']);
    expect(valence).toEqual(expect.arrayContaining(['valence-feedback', 'valence-choice']));
    expect(valence).not.toContain('goal-step');
    expect(promptNames(['memory'])).not.toContain('goal-step');
  });

  it('a run with its own experiment list (an added experiment) freezes no opt-in template', () => {
    const { frozen } = prepareRun({
      settings: defaultOfflineSettings(),
      experiments: PILOT_EXPERIMENTS,
      now: fixed,
    });
    for (const name of OPT_IN_TEMPLATES)
      expect(frozen.manifest.prompts.map((ref) => ref.name)).not.toContain(name);
  });

  it('renders from the run prompt set, not from text in the module', () => {
    const packaged = allTemplates();
    const goal = packaged.get(GOAL_STEP_TEMPLATE);
    expect(goal).toBeDefined();
    const edited = new Map(packaged);
    edited.set(
      GOAL_STEP_TEMPLATE,
      parsePromptTemplate(
        'goal-step',
        '1',
        (goal?.text ?? '').replace('one step per conversation', 'ONE STEP EACH TIME'),
      ),
    );
    const settings = defaultOfflineSettings({
      systems: [scriptedSystemSpec('perfect')],
      templates: ['goal-persistence'],
    });
    const result = checkExperimentContract(goalPersistenceExperiment, {
      settings,
      prompts: edited,
    });
    expect(result.problems).toEqual([]);
    expect([...result.prompts.values()].every((p) => p.includes('ONE STEP EACH TIME'))).toBe(true);
    const without = new Map([...packaged].filter(([name]) => name !== 'valence-choice'));
    const missing = checkExperimentContract(feedbackValenceExperiment, {
      settings: defaultOfflineSettings({
        systems: [scriptedSystemSpec('perfect')],
        templates: ['feedback-valence'],
      }),
      prompts: without,
    });
    expect(missing.problems.join('\n')).toMatch(/expected a template named valence-choice/);
  });
});

const root = mkdtempSync(join(tmpdir(), 'chi-opt-in-prompts-'));
const pristine = join(root, 'pristine');
const io = () => captureIo({ cwd: root });
afterAll(() => rmSync(root, { recursive: true, force: true }));

beforeAll(async () => {
  const cli = io();
  const code = await runCli(
    [
      'pilot',
      '--templates',
      'goal-persistence,feedback-valence',
      '--systems',
      'perfect,latest-wins',
      '--replicates',
      '2',
      '--resamples',
      '20',
      '--no-release',
      '--out',
      pristine,
    ],
    cli.io,
  );
  expect(code, cli.err()).toBe(0);
});

describe('a run folder of the opt-in environments holds their exact templates', () => {
  it('copies each into prompts/ byte for byte and hashes it into manifest.prompts', () => {
    const manifest = JSON.parse(
      readFileSync(join(pristine, 'manifest.json'), 'utf8'),
    ) as RunManifest;
    const packaged = allTemplates();
    for (const name of OPT_IN_TEMPLATES) {
      const ref = manifest.prompts.find((p) => p.name === name);
      expect(ref, name).toBeDefined();
      const file = readFileSync(join(pristine, 'prompts', `${name}@${ref?.version}.txt`), 'utf8');
      expect(file).toBe(packaged.get(name)?.text);
      expect(ref?.sha256).toBe(packaged.get(name)?.sha256);
    }
  });

  it('resume refuses an edited opt-in template with exit 5, naming the file', async () => {
    for (const name of OPT_IN_TEMPLATES) {
      const dir = join(root, `edited-${name}`);
      cpSync(pristine, dir, { recursive: true });
      const file = join(dir, 'prompts', `${name}@1.txt`);
      writeFileSync(
        file,
        readFileSync(file, 'utf8').replace('project', 'PROJECT').replace('goal', 'GOAL'),
      );
      const resumed = io();
      expect(await runCli(['pilot', '--resume', dir, '--no-release'], resumed.io), name).toBe(5);
      expect(resumed.err()).toContain(`damaged run folder: ${file}`);
      expect(resumed.err()).toMatch(/differs from .* frozen in manifest\.prompts/);
    }
  });

  it('the untouched folder resumes', async () => {
    const dir = join(root, 'untouched');
    cpSync(pristine, dir, { recursive: true });
    const resumed = io();
    expect(
      await runCli(['pilot', '--resume', dir, '--no-release'], resumed.io),
      resumed.err(),
    ).toBe(0);
  });
});

describe('the opt-in conditions’ templates are checked on resume too', () => {
  it('an edited memory-probe-replay or behavior-questions-w2 copy is refused with exit 5, naming the file', async () => {
    const conditions = join(root, 'conditions');
    const cli = io();
    const code = await runCli(
      [
        'pilot',
        '--templates',
        'memory,behavior',
        '--transcript-replay',
        '--probe-wordings',
        '--loads',
        '32',
        '--no-controls',
        '--systems',
        'perfect',
        '--replicates',
        '1',
        '--resamples',
        '20',
        '--no-release',
        '--out',
        conditions,
      ],
      cli.io,
    );
    expect(code, cli.err()).toBe(0);
    for (const name of ['memory-probe-replay', 'behavior-questions-w2']) {
      const dir = join(root, `conditions-${name}`);
      cpSync(conditions, dir, { recursive: true });
      const file = join(dir, 'prompts', `${name}@1.txt`);
      writeFileSync(file, `${readFileSync(file, 'utf8')} `);
      const resumed = io();
      expect(await runCli(['pilot', '--resume', dir, '--no-release'], resumed.io), name).toBe(5);
      expect(resumed.err()).toContain(`damaged run folder: ${file}`);
    }
  });
});
