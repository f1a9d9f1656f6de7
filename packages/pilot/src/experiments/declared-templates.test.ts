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
import { createRun, planRun, prepareRun } from '../run-folder/run-create';
import { executeRun } from '../runner/run-execute';
import { scriptedChatModel, scriptedSystemSpec } from '../scripted/scripted-systems';
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

describe("the default run's declared templates", () => {
  const frozen = (templates: readonly string[] | undefined) =>
    planRun({
      settings: defaultOfflineSettings({
        systems: [scriptedSystemSpec('perfect')],
        ...(templates === undefined ? {} : { templates }),
      }),
      createdAt: new Date('2026-09-01T00:00:00.000Z'),
    }).frozen.manifest.prompts.map((ref) => `${ref.name}@${ref.version} ${ref.sha256}`);

  it('are frozen with the bytes the pilot once packaged, whether or not the run includes them', () => {
    // the templates and SHA-256 a default manifest froze when they were packaged files
    const packaged = [
      'behavior-half@2 373078048e775b30068cf4e18b92add94ffba2fd7a35fd2ba4ff9bb48ca0efc3',
      'behavior-questions@1 80ece9d70b1841e61e5572b6d1f2cad34dd6a32e17f5743c108e888d2498ce85',
      'history-probe@1 b79b1172f6b0b5424dfcdd95dacbb2a15a279d7d7b83eee6bbf324230dc16f5c',
      'history-update@1 a7eb971043894b365998c4b806622856a3c2a1955b8e5932f4a4a244b769ccc1',
      'memory-encode@1 9c0ea4663058a5ab30d1822458a5e01348a563929c0363a35ca79a05907dcdd0',
      'memory-probe@1 bb8f1969733c27f332c59a3705500d2bd78712b3f3d7d7bf3d7db85343e87e59',
      'memory-probe-oracle@1 587fd7bca4ca968bd007d18b2a43b7c523a42ccedd7d6b0e12e0b4105a8012c5',
      'smoke@1 592dc0f3a21ac57577299b246e7911b6c914d415d8ed03cb9251b8fdc7b0c565',
      'system@1 a1e30105caa6e0bfa3a2130829c5630b0f99366fc5c74ddc1031d9afbb11e984',
    ];
    expect(frozen(undefined)).toEqual(packaged);
    // a run that leaves the three out (the opt-in release) freezes them all the same, so its
    // manifest and run ID do not depend on where the bytes live
    const optIn = frozen(['goal-persistence']);
    expect(optIn.filter((line) => !line.startsWith('goal-step@'))).toEqual(packaged);
    // an opt-in module left out freezes none of its own
    expect(frozen(['history']).some((line) => line.startsWith('goal-step@'))).toBe(false);
  });
});
