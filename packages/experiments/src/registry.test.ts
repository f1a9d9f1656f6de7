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
    // the SHA-256 of prompts/<name>@1.txt before the templates moved into their folders: every
    // manifest that froze them holds these, so a changed byte would be a new protocol
    const hashes = Object.fromEntries(
      BUILT_IN_EXPERIMENTS.flatMap((b) => b.experiment.promptTemplates ?? []).map((t) => [
        `${t.name}@${t.version}`,
        sha256(t.text),
      ]),
    );
    expect(hashes).toEqual({
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
