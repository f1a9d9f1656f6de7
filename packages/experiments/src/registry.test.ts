import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  checkBuiltInRegistry,
  defineBuiltInExperiment,
  defineProtocolExperiment,
} from './built-in-experiment';
import { divergence } from './divergence';
import { feedbackValence } from './feedback-valence';
import { goalPersistence } from './goal-persistence';
import { BUILT_IN_EXPERIMENTS, PROTOCOL_EXPERIMENTS } from './registry';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('the built-in registry', () => {
  it('lists each folder once, in scheduling order, each module with its own scorer', () => {
    expect(BUILT_IN_EXPERIMENTS.map((b) => b.experiment.id)).toEqual([
      'memory',
      'history',
      'behavior',
      'goal-persistence',
      'feedback-valence',
    ]);
    for (const builtIn of BUILT_IN_EXPERIMENTS)
      expect(builtIn.scorer.experimentId).toBe(builtIn.experiment.id);
    expect(BUILT_IN_EXPERIMENTS.filter((b) => b.inDefaultRun).map((b) => b.experiment.id)).toEqual([
      'memory',
      'history',
      'behavior',
    ]);
  });

  it('refuses a folder listed twice, a task claimed twice and a scorer of another experiment', () => {
    expect(() => checkBuiltInRegistry([goalPersistence, goalPersistence])).toThrow(
      /experiment goal-persistence is listed twice/,
    );
    const twin = { ...feedbackValence, experiment: { ...feedbackValence.experiment, id: 'twin' } };
    expect(() => checkBuiltInRegistry([feedbackValence, twin])).toThrow(
      /task valence_feedback is claimed by both feedback-valence and twin/,
    );
    expect(() =>
      defineBuiltInExperiment({ ...goalPersistence, scorer: feedbackValence.scorer as never }),
    ).toThrow(/goal-persistence has a scorer for feedback-valence/);
  });

  it('declares the prompt templates byte for byte as the pilot packaged them (their frozen hashes)', () => {
    // the SHA-256 of prompts/<name>@<version>.txt before the templates moved into their folders
    // (the pilot's packaged files, `packages/pilot/prompts/`, for memory, history and behavior): every
    // manifest that froze them holds these, so a changed byte would be a new protocol
    const hashes = Object.fromEntries(
      BUILT_IN_EXPERIMENTS.flatMap((b) => b.experiment.promptTemplates ?? []).map((t) => [
        `${t.name}@${t.version}`,
        sha256(t.text),
      ]),
    );
    expect(hashes).toEqual({
      'memory-encode@1': '9c0ea4663058a5ab30d1822458a5e01348a563929c0363a35ca79a05907dcdd0',
      'memory-probe@1': 'bb8f1969733c27f332c59a3705500d2bd78712b3f3d7d7bf3d7db85343e87e59',
      'memory-probe-oracle@1': '587fd7bca4ca968bd007d18b2a43b7c523a42ccedd7d6b0e12e0b4105a8012c5',
      'memory-probe-replay@1': 'b982c56064ba3f683cfbea1f79a02e9fdb5da193e93c9be89f339a394ad08130',
      'memory-encode-system@1': '1b021e00b759b0fe000fd3c12c98a606f5b18e98c1e0ecfb83b48603edaf57bf',
      'memory-probe-system@1': 'c0abe4eb699fa20c14e0abb17bd08da18c48d835ab6b1c3dd38f4584e23d4320',
      'history-update@1': 'a7eb971043894b365998c4b806622856a3c2a1955b8e5932f4a4a244b769ccc1',
      'history-probe@1': 'b79b1172f6b0b5424dfcdd95dacbb2a15a279d7d7b83eee6bbf324230dc16f5c',
      'history-update-system@1': 'a88b1c996b0a94a172495a048b2ca2f2535556d209fe75c08a8a62807b235e86',
      'history-probe-system@1': 'a09a82d52020a396dc7b0604ddddb6ec921b1500062efb69b886a89c675e5306',
      'behavior-half@2': '373078048e775b30068cf4e18b92add94ffba2fd7a35fd2ba4ff9bb48ca0efc3',
      'behavior-questions@1': '80ece9d70b1841e61e5572b6d1f2cad34dd6a32e17f5743c108e888d2498ce85',
      'behavior-questions-w2@1': 'e9d9e3a60b919aa1b1e1e26bc6338e10e826d879c058015d48a7bacc8c3f4571',
      'goal-step@1': '10ba0e6dce23ddf79efb5a45e3bcc7f9beb938fe9988d7573c6f428c5460cac3',
      'valence-feedback@1': '38ba488d35f10bdfb8b6c0c669fe17a5db940753545b3d9defca99ba67d4c4fc',
      'valence-choice@1': 'ba2fabdba1c324249cf1e780058733f1e53be057e0533c7acf42f38bb81e18be',
    });
  });

  it('a scripted system without a policy is an error naming the experiment and the system', () => {
    expect(() =>
      goalPersistence.scripted({
        system: 'nobody',
        task: 'goal_step',
        prompt: '',
        policy: undefined,
        noise: { uniform: () => 0, chance: () => false, hex8: () => '00000000' },
        now: () => new Date(0),
        notebookCapBytes: 6000,
      }),
    ).toThrow(/goal-persistence has no scripted policy for "nobody"/);
  });
});

describe('the protocol experiments', () => {
  it('lists the divergence folder apart from the built-in ones, so no template list offers it', () => {
    expect(PROTOCOL_EXPERIMENTS).toEqual([divergence]);
    expect(divergence.experiment.id).toBe('divergence');
    expect(divergence.scorer.experimentId).toBe('divergence');
    expect(BUILT_IN_EXPERIMENTS.map((b) => b.experiment.id)).not.toContain('divergence');
  });

  it('refuses a protocol whose scorer is of another experiment', () => {
    expect(() =>
      defineProtocolExperiment({
        experiment: divergence.experiment,
        scorer: goalPersistence.scorer as unknown as typeof divergence.scorer,
      }),
    ).toThrow(/experiment divergence has a scorer for goal-persistence/);
  });
});
