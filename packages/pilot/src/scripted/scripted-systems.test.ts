import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderJsonBlock } from '@chi/experiment';
import { BUILT_IN_EXPERIMENTS, type ScriptedContext } from '@chi/experiments';
import { checkChatModelContract } from '@chi/spec/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryScoresOf } from '../__fixtures__/memory-scores';
import { modelsForManifest } from '../endpoints/system-models';
import { createRun } from '../run-folder/run-create';
import { executeRun } from '../runner/run-execute';
import { defaultOfflineSettings } from '../settings';
import { createInstanceNoise, createScriptedNoise } from './scripted-noise';
import {
  createScriptedModel,
  EXTRA_SCRIPTED_SYSTEM_NAMES,
  SCRIPTED_SYSTEM_NAMES,
  SCRIPTED_SYSTEMS,
  type ScriptedSystemName,
  scriptedReply,
} from './scripted-systems';

const LOADS = [32, 64, 128, 256];
let root: string;
let scores: ReturnType<typeof memoryScoresOf>;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'chi-scripted-'));
  const run = await createRun({
    settings: defaultOfflineSettings({
      replicates: 3,
      loads: LOADS,
      history: false,
      behavior: false,
    }),
    runDir: join(root, 'run'),
  });
  const outcome = await executeRun({
    runDir: run.runDir,
    models: modelsForManifest(run.frozen.manifest),
  });
  expect(outcome.state).toBe('completed');
  scores = memoryScoresOf(run.runDir);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

const score = (system: string, load: number, condition = 'notebook') => {
  const found = scores.get(`${system} ${condition} ${load}`);
  if (found === undefined) throw new Error(`no score for ${system} ${condition} ${load}`);
  return found;
};

describe('scripted reference systems on the memory experiment', () => {
  it('perfect (uncapped reference condition) gets Q_M = 1 at every load', () => {
    for (const load of LOADS) expect(score('perfect', load).qualityScore).toBe(1);
  });

  it("the capacity-keeper's Q_M falls strictly as the load grows", () => {
    const curve = LOADS.map((load) => score('capacity-keeper', load).qualityScore);
    for (let index = 1; index < curve.length; index++) {
      expect(curve[index]).toBeLessThan(curve[index - 1] as number);
    }
    expect(curve[curve.length - 1]).toBeGreaterThan(0);
  });

  it('the abstainer gets Q_M = 0: content factors 0 except the never-eligible t probes, no lure failure', () => {
    for (const load of LOADS) {
      const { qualityScore, factors } = score('abstainer', load);
      expect(qualityScore).toBe(0);
      // Abstention is the right answer to the 2 of 8 t probes asked before the key's only record.
      expect(factors).toEqual({ r: 0, t: 2 / 8, s: 0, u: 0, i: 0, oneMinusF: 1 });
    }
  });

  it('the latest-wins reader fails the interference stratum at every load', () => {
    for (const load of LOADS) {
      expect(score('latest-wins', load).factors.i).toBe(0);
      expect(score('latest-wins', load).qualityScore).toBe(0);
    }
    // Authoritative updates are also the latest record of their key in this generator, so a
    // reader that ignores authority still answers u correctly when it kept the key.
    expect(score('latest-wins', 32).factors.u).toBe(1);
    expect(score('capacity-keeper', 32).factors.i).toBe(1);
  });

  it('the confabulator affirms every absent-key lure (f = 1, Q_M = 0)', () => {
    for (const load of LOADS) expect(score('confabulator', load).factors.oneMinusF).toBe(0);
  });

  it('controls: blank notes give nothing, oracle records solve the task for correct readers', () => {
    expect(score('capacity-keeper', 32, 'blank').factors.r).toBe(0);
    expect(score('capacity-keeper', 32, 'oracle').qualityScore).toBe(1);
    expect(score('latest-wins', 32, 'oracle').factors.i).toBe(0);
  });
});

describe('createScriptedModel', () => {
  it.each(SCRIPTED_SYSTEM_NAMES)('%s meets the ChatModel contract', async (name) => {
    const request = {
      messages: [
        {
          role: 'user' as const,
          content: `${renderJsonBlock('REQUEST', { task: 'smoke', nonce: '0123456789abcdef' })}\n${renderJsonBlock('QUESTIONS', [{ id: 'q', value: '00000000', source: 's' }])}`,
        },
      ],
    };
    expect(await checkChatModelContract(createScriptedModel(name), { request })).toEqual([]);
  });

  it('labels every result as a scripted baseline that cost nothing', async () => {
    const result = await createScriptedModel('perfect').generate({
      requestId: 'r1',
      messages: [{ role: 'user', content: 'not one of our prompts' }],
    });
    expect(result).toMatchObject({
      evidenceClass: 'scripted_baseline',
      reservedUsd: 0,
      chargedUsd: 0,
      failure: 'invalid_response',
    });
  });

  it('rejects an unknown system name with the valid names', () => {
    expect(() => createScriptedModel('oracle')).toThrow(
      /system: expected one of perfect, capacity-keeper, latest-wins, confabulator, abstainer, wording-sensitive, fading-recall, fading-notebook, found "oracle"/,
    );
  });

  it('replies depend on the prompt and seed only, and only the reference conditions have an uncapped notebook', () => {
    const prompt = `${renderJsonBlock('REQUEST', { task: 'history_probe', nonce: 'aaaaaaaaaaaaaaaa' })}\n${renderJsonBlock('NOTES', { notes: '' })}\n${renderJsonBlock('QUESTIONS', [{ id: 'e1', subject: 's', options: ['X', 'Y'] }])}`;
    const keeper = SCRIPTED_SYSTEMS['capacity-keeper'];
    expect(scriptedReply(keeper, 1, prompt)).toBe(scriptedReply(keeper, 1, prompt));
    expect(JSON.parse(scriptedReply(keeper, 1, prompt))).toEqual([{ id: 'e1', answer: 'unknown' }]);
    expect(JSON.parse(scriptedReply(SCRIPTED_SYSTEMS.abstainer, 1, prompt))).toEqual([
      { id: 'e1', answer: null },
    ]);
    expect(
      Object.values(SCRIPTED_SYSTEMS)
        .filter((system) => system.uncappedNotebook)
        .map((system) => system.name),
      // perfect in the roster; fading-recall is the opt-in interior-EIMC reference (issue 31)
    ).toEqual(['perfect', 'fading-recall', 'fading-notebook']);
  });
});

describe('a scripted reply comes from the folder whose module claims the task', () => {
  const prompt = `${renderJsonBlock('REQUEST', { task: 'memory_encode', nonce: 'aaaaaaaaaaaaaaaa', notebookCapBytes: 123 })}\n${renderJsonBlock('RECORDS', [])}`;
  const keeper = SCRIPTED_SYSTEMS['capacity-keeper'];
  const fixed = () => new Date('2026-09-01T00:00:00.000Z');

  it('hands the folder the system policy for it, the draws, the clock and the stated cap', () => {
    const memory = BUILT_IN_EXPERIMENTS.find((b) => b.experiment.id === 'memory');
    if (memory === undefined) throw new Error('no memory folder');
    let seen: ScriptedContext | undefined;
    const spy = {
      ...memory,
      scripted: (context: ScriptedContext) => {
        seen = context;
        return 'from the folder';
      },
    };
    expect(scriptedReply(keeper, 1, prompt, 'r1', fixed, [spy])).toBe('from the folder');
    expect(seen?.policy).toBe(keeper.policies.memory);
    expect(seen?.notebookCapBytes).toBe(123);
    expect(seen?.now()).toEqual(fixed());
    expect(seen?.noise.uniform('x')).toBe(createInstanceNoise(1, 'r1').uniform('x'));
  });

  it('has no task of its own but smoke: a registry without the memory folder cannot answer memory', () => {
    const others = BUILT_IN_EXPERIMENTS.filter((b) => b.experiment.id !== 'memory');
    expect(() => scriptedReply(keeper, 1, prompt, 'r1', fixed, others)).toThrow(
      /unknown task "memory_encode"/,
    );
  });
});

describe('every scripted system has a policy in every built-in experiment folder', () => {
  // the folders' policy tables are keyed by name (`@chi/experiments` does not import the pilot),
  // so this test is what keeps them complete when a scripted system is added
  const names = [...SCRIPTED_SYSTEM_NAMES, ...EXTRA_SCRIPTED_SYSTEM_NAMES];
  it.each(BUILT_IN_EXPERIMENTS.map((builtIn) => [builtIn.experiment.id, builtIn] as const))(
    '%s',
    (_id, builtIn) => {
      const context = (system: string, task: string) => ({
        system,
        task,
        prompt: '',
        // the pilot's own policies of a system, under the experiment's ID (`ScriptedContext`)
        policy: Object.hasOwn(SCRIPTED_SYSTEMS, system)
          ? (
              SCRIPTED_SYSTEMS[system as ScriptedSystemName].policies as unknown as Record<
                string,
                unknown
              >
            )[builtIn.experiment.id]
          : undefined,
        noise: createScriptedNoise(1, 'n'),
        now: () => new Date(0),
        notebookCapBytes: 6000,
      });
      for (const system of names)
        for (const task of builtIn.experiment.tasks)
          expect(() => builtIn.scripted(context(system, task)), system).not.toThrow(
            /has no scripted policy/,
          );
      expect(() => builtIn.scripted(context('nobody', builtIn.experiment.tasks[0] ?? ''))).toThrow(
        /has no scripted policy for "nobody"/,
      );
    },
  );
});
