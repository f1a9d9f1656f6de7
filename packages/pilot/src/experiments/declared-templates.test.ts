import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderJsonBlock } from '@chi/experiment';
import { type ChatModel, InvalidArgumentError, RunFolderDamagedError } from '@chi/spec';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { oneRequestExperiment } from '../__fixtures__/one-request-experiment';
import { runPilot } from '../pilot';
import { promptSections, renderTemplate, requireSection, requireTemplate } from '../prompts';
import { createRun, prepareRun } from '../run-create';
import { executeRun } from '../run-execute';
import { scriptedChatModel, scriptedSystemSpec } from '../scripted-systems';
import { defaultOfflineSettings } from '../settings';
import { checkExperimentContract } from './contract';
import type { AnyExperiment, ExperimentPromptTemplate } from './experiment';
import { PILOT_EXPERIMENTS } from './registry';

const GREET_TEXT =
  '[system]\nAnswer briefly.\n[user]\n{{REQUEST_BLOCK}}\n\nSay hello to {{NAME}}.\n';
const GREET: ExperimentPromptTemplate = {
  name: 'x-greet',
  version: '1',
  text: GREET_TEXT,
  sections: ['system', 'user'],
};

/** An added experiment that brings its own sectioned template and renders from the run's copy. */
function greetExperiment(templates: readonly ExperimentPromptTemplate[] = [GREET]) {
  return oneRequestExperiment<{ name: string }>({
    id: 'x-greet',
    params: { name: 'Ada' },
    parameters: z.strictObject({ name: z.string() }),
    promptTemplates: templates,
    render: ({ request, prompts, params }) => {
      const template = requireTemplate(prompts, 'x-greet');
      const sections = promptSections(template);
      return {
        task: 'x-greet',
        template: { name: template.name, version: template.version },
        messages: [
          { role: 'system', content: renderTemplate(requireSection(sections, 'system'), {}) },
          {
            role: 'user',
            content: renderTemplate(requireSection(sections, 'user'), {
              REQUEST_BLOCK: renderJsonBlock('REQUEST', { task: 'x-greet', nonce: request.nonce }),
              NAME: params.name,
            }),
          },
        ],
      };
    },
  });
}

const fixed = () => new Date('2026-09-01T00:00:00.000Z');
const settings = (templates?: string[]) =>
  defaultOfflineSettings({
    systems: [scriptedSystemSpec('perfect')],
    replicates: 1,
    ...(templates === undefined ? {} : { templates }),
  });
const registryWith = (module: AnyExperiment) => [...PILOT_EXPERIMENTS, module];
const promptNames = (experiments: readonly AnyExperiment[], templates?: string[]) =>
  prepareRun({
    settings: settings(templates),
    experiments,
    now: fixed,
  }).frozen.manifest.prompts.map((ref) => ref.name);

const root = mkdtempSync(join(tmpdir(), 'chi-declared-templates-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Runs x-greet alone (no release), answering every request with a fixed text; keeps the prompts. */
function replying(sent: string[] = []): ChatModel {
  return scriptedChatModel(
    'scripted/perfect',
    (prompt) => {
      sent.push(prompt);
      return 'hello';
    },
    fixed,
  );
}

async function runGreet(runDir: string, experiment: AnyExperiment) {
  return runPilot({
    settings: settings(['x-greet']),
    experiments: registryWith(experiment),
    models: new Map([['perfect', replying()]]),
    runDir,
    release: false,
    now: fixed,
  });
}

describe('a template declared by an experiment module added from outside', () => {
  it('is frozen into prompts/ and manifest.prompts byte for byte when the run includes the module', async () => {
    const runDir = join(root, 'fresh');
    const outcome = await runGreet(runDir, greetExperiment());
    expect(outcome.exitCode).toBe(0);
    const manifest = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')) as {
      prompts: { name: string; version: string; sha256: string }[];
    };
    const ref = manifest.prompts.find((p) => p.name === 'x-greet');
    expect(ref?.version).toBe('1');
    expect(readFileSync(join(runDir, 'prompts', 'x-greet@1.txt'), 'utf8')).toBe(GREET_TEXT);
  });

  it('is left out of a run without the module, so the default manifest keeps its prompts', () => {
    const pilotOnly = promptNames(PILOT_EXPERIMENTS);
    expect(promptNames(registryWith(greetExperiment()), ['memory', 'history', 'behavior'])).toEqual(
      pilotOnly,
    );
    expect(promptNames(registryWith(greetExperiment()), ['x-greet'])).toContain('x-greet');
  });

  it('renders from the frozen copy, not from the module text of a later session', async () => {
    const runDir = join(root, 'frozen-copy');
    const run = await createRun({
      settings: settings(['x-greet']),
      runDir,
      experiments: registryWith(greetExperiment()),
      now: fixed,
    });
    const sent: string[] = [];
    const reworded = greetExperiment([{ ...GREET, text: GREET_TEXT.replace('hello', 'hi') }]);
    const execution = await executeRun({
      runDir: run.runDir,
      experiments: registryWith(reworded),
      models: new Map([['perfect', replying(sent)]]),
    });
    expect(execution.state).toBe('completed');
    expect(sent.length).toBe(1);
    expect(sent[0]).toContain('Say hello to Ada.');
  });

  it('an edited frozen copy makes resume refuse the folder (exit 5), naming the file', async () => {
    const runDir = join(root, 'edited');
    expect((await runGreet(runDir, greetExperiment())).exitCode).toBe(0);
    const file = join(runDir, 'prompts', 'x-greet@1.txt');
    writeFileSync(file, readFileSync(file, 'utf8').replace('hello', 'HELLO'));
    const resumed = runPilot({
      resumeDir: runDir,
      experiments: registryWith(greetExperiment()),
      models: new Map([['perfect', replying()]]),
      release: false,
      now: fixed,
    });
    const error = await resumed.catch((thrown: unknown) => thrown);
    expect(RunFolderDamagedError.isInstance(error)).toBe(true);
    expect((error as RunFolderDamagedError).file).toBe(file);
    expect(String(error)).toMatch(/differs from .* frozen in manifest\.prompts/);
  });

  it('passes the contract suite, which renders from its declared template', () => {
    const result = checkExperimentContract(greetExperiment(), { reply: () => 'hello' });
    expect(result.problems).toEqual([]);
    expect([...result.prompts.values()].every((p) => p.includes('Say hello to Ada.'))).toBe(true);
  });
});

describe('declared template names and sections are checked', () => {
  const refused = (experiments: readonly AnyExperiment[], pattern: RegExp) => {
    let thrown: unknown;
    try {
      prepareRun({ settings: settings(['x-greet']), experiments, now: fixed });
    } catch (error) {
      thrown = error;
    }
    expect(InvalidArgumentError.isInstance(thrown), String(thrown)).toBe(true);
    expect(String(thrown)).toMatch(pattern);
  };

  it('refuses a name of a built-in template', () => {
    refused(
      registryWith(greetExperiment([{ ...GREET, name: 'system' }])),
      /experiments\.x-greet\.promptTemplates\[0\]: template system collides with the built-in template system@1/,
    );
  });

  it('refuses a name declared by two modules, or twice by one', () => {
    const other: AnyExperiment = {
      ...greetExperiment(),
      id: 'x-other',
      tasks: ['x-other'],
      kinds: ['x-other'],
    };
    refused(
      [...registryWith(greetExperiment()), other],
      /experiments\.x-other\.promptTemplates\[0\]: template x-greet is declared by both x-greet and x-other/,
    );
    refused(
      registryWith(greetExperiment([GREET, GREET])),
      /promptTemplates\[1\]: template x-greet is declared twice by x-greet/,
    );
  });

  it('refuses a bad name, a bad version and sections the text does not have', () => {
    refused(registryWith(greetExperiment([{ ...GREET, name: 'X greet' }])), /lowercase letters/);
    refused(registryWith(greetExperiment([{ ...GREET, version: 'v1' }])), /version of digits/);
    refused(
      registryWith(greetExperiment([{ ...GREET, sections: ['system', 'user', 'goal'] }])),
      /declares the sections \[system\], \[user\], \[goal\], its text has \[system\], \[user\]/,
    );
  });

  it('the contract reports a render that names a template outside the run', () => {
    const module = greetExperiment();
    const stray = {
      ...module,
      render: (context: Parameters<typeof module.render>[0]) => ({
        ...module.render(context),
        template: { name: 'x-greet', version: '2' },
      }),
    };
    expect(checkExperimentContract(stray, { reply: () => 'hello' }).problems.join('\n')).toMatch(
      /names template x-greet@2, which is not among the run's prompts/,
    );
  });
});
