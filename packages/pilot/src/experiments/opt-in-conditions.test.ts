import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { behavior } from '@chi/experiments';
import {
  answerBehavioralItems,
  behaviorQuestionSections,
  memoryExperiment,
  readBehaviorQuestion,
  renderBehaviorQuestion,
} from '@chi/experiments/internal';
import { openRunFolder } from '@chi/run';
import { generateBehavioralItems } from '@chi/worlds';
import { describe, expect, it } from 'vitest';
import type { PilotCommand } from '../cli/cli-args';
import { parseCli } from '../cli/cli-args';
import { settingsFor } from '../cli/cli-main';
import { modelsForManifest } from '../endpoints/system-models';
import { requireTemplate } from '../prompts';
import { createRun, prepareRun } from '../run-folder/run-create';
import { executeRun } from '../runner/run-execute';
import { createScriptedNoise } from '../scripted/scripted-noise';
import { scriptedDefinition, scriptedSystemSpec } from '../scripted/scripted-systems';
import { defaultOfflineSettings } from '../settings';
import { checkExperimentContract } from './contract';
import { registeredPromptTemplates } from './declared-templates';

const fixed = () => new Date('2026-09-01T00:00:00.000Z');

describe('opt-in conditions leave the default run as it was', () => {
  it('the default manifest has no opt-in field and no opt-in template', () => {
    const { frozen, plan } = prepareRun({ settings: defaultOfflineSettings(), now: fixed });
    expect(frozen.manifest.experiments.memory).not.toHaveProperty('transcriptReplay');
    expect(frozen.manifest.experiments.behavior).not.toHaveProperty('wordings');
    const names = frozen.manifest.prompts.map((p) => p.name);
    expect(names).not.toContain('memory-probe-replay');
    expect(plan.requests.some((r) => r.condition === 'replay' || 'wording' in r)).toBe(false);
    expect(frozen.manifest.configuration).toBeUndefined();
  });
});

describe('the transcript-replay baseline (--transcript-replay)', () => {
  it('is a CLI flag, a settings field and a frozen memory parameter with its template', () => {
    const command = parseCli(['pilot', '--transcript-replay']) as PilotCommand;
    expect(command.transcriptReplay).toBe(true);
    const settings = settingsFor(command);
    expect(settings.transcriptReplay).toBe(true);
    const { frozen, plan } = prepareRun({ settings, now: fixed });
    expect(frozen.manifest.experiments.memory?.transcriptReplay).toBe(true);
    expect(frozen.manifest.prompts.map((p) => p.name)).toContain('memory-probe-replay');
    // one replay probe per system, world and load, after that load's encode
    const replay = plan.requests.filter((r) => r.condition === 'replay');
    expect(replay).toHaveLength(5 * 4 * 4);
    expect(parseCli(['pilot']) as PilotCommand).toMatchObject({ transcriptReplay: false });
  });

  it('meets the experiment contract with the option on: the replay prompt holds the encode transcript', () => {
    const settings = defaultOfflineSettings({
      systems: [scriptedSystemSpec('perfect'), scriptedSystemSpec('capacity-keeper')],
      replicates: 1,
      loads: [32],
      controlsAtLoad: 32,
      transcriptReplay: true,
    });
    const result = checkExperimentContract(memoryExperiment, { settings });
    expect(result.problems).toEqual([]);
    const replay = result.requests.filter((r) => r.condition === 'replay');
    expect(replay.map((r) => r.step)).toEqual(['replay.probe.b0', 'replay.probe.b0']);
  });
});

describe('probe-wording invariance (--probe-wordings)', () => {
  it('is a CLI flag, a settings field and a frozen behavior parameter with its wording template', () => {
    const command = parseCli(['pilot', '--probe-wordings']) as PilotCommand;
    expect(command.probeWordings).toBe(true);
    const { frozen, plan } = prepareRun({ settings: settingsFor(command), now: fixed });
    expect(frozen.manifest.experiments.behavior?.wordings).toBe(2);
    expect(frozen.manifest.prompts.map((p) => p.name)).toContain('behavior-questions-w2');
    const second = plan.requests.filter((r) => r.wording === 2);
    // 5 systems x 4 worlds x 2 halves
    expect(second).toHaveLength(40);
    expect(second.every((r) => r.task === 'behavior_half' && r.step.endsWith('.w2'))).toBe(true);
  });

  it('declares equivalent wordings: both state exactly the same facts of every item', () => {
    const prompts = registeredPromptTemplates();
    const [first, second] =
      behavior.experiment.wordings?.map((w) =>
        behaviorQuestionSections(requireTemplate(prompts, w.template)),
      ) ?? [];
    if (first === undefined || second === undefined) throw new Error('two wordings declared');
    let read = 0;
    for (let seed = 1; seed <= 20; seed++) {
      for (const item of generateBehavioralItems({ seed }).items) {
        const reworded = renderBehaviorQuestion(second, item);
        expect(reworded).not.toBe(renderBehaviorQuestion(first, item));
        expect(readBehaviorQuestion(second, reworded), `${seed} ${item.id}`).toEqual(item.facts);
        // neither wording reads as the other
        expect(readBehaviorQuestion(first, reworded)).toBeNull();
        read++;
      }
    }
    expect(read).toBe(20 * 24);
  });

  it('meets the experiment contract with the option on', () => {
    const settings = defaultOfflineSettings({
      systems: [scriptedSystemSpec('perfect'), scriptedSystemSpec('wording-sensitive')],
      replicates: 1,
      probeWordings: true,
    });
    const result = checkExperimentContract(behavior.experiment, { settings });
    expect(result.problems).toEqual([]);
    expect(result.requests.filter((r) => r.wording === 2)).toHaveLength(4);
  });

  it('scripted systems: the invariant one answers alike under both wordings, the sensitive one does not', () => {
    const set = generateBehavioralItems({ seed: 7 });
    const items = (template: string) =>
      set.items.map((item) => ({
        id: item.id,
        options: item.options,
        question: renderBehaviorQuestion(
          behaviorQuestionSections(requireTemplate(registeredPromptTemplates(), template)),
          item,
        ),
      }));
    const noise = createScriptedNoise(1, 'n');
    const answers = (name: string, template: string) =>
      answerBehavioralItems(items(template), scriptedDefinition(name).policies.behavior, noise);
    expect(answers('perfect', 'behavior-questions-w2')).toEqual(
      answers('perfect', 'behavior-questions'),
    );
    const first = answers('wording-sensitive', 'behavior-questions');
    const second = answers('wording-sensitive', 'behavior-questions-w2');
    expect(first).toEqual(answers('perfect', 'behavior-questions'));
    const same = second.filter((a, i) => a.answer === first[i]?.answer).length;
    expect(same).toBeGreaterThan(0);
    expect(same).toBeLessThan(24);
  });
});

describe('a replay run resumed after its encode requests', () => {
  it('replays the same transcript as an uninterrupted run: the reply is rebuilt from the attempt log', async () => {
    const root = mkdtempSync(join(tmpdir(), 'chi-replay-resume-'));
    try {
      const settings = defaultOfflineSettings({
        systems: [scriptedSystemSpec('capacity-keeper'), scriptedSystemSpec('perfect')],
        replicates: 1,
        loads: [32],
        controlsAtLoad: null,
        history: false,
        behavior: false,
        transcriptReplay: true,
      });
      const run = await createRun({ settings, runDir: join(root, 'run'), now: fixed });
      const models = modelsForManifest(run.frozen.manifest);
      const controller = new AbortController();
      const interrupted = await executeRun({
        runDir: run.runDir,
        models,
        concurrency: 1,
        signal: controller.signal,
        onEvent: (event) => {
          if (event.type === 'request-finished' && event.progress.done === 2) controller.abort();
        },
      });
      expect(interrupted.state).toBe('stopped');
      expect((await executeRun({ runDir: run.runDir, models })).state).toBe('completed');
      const reference = await createRun({ settings, runDir: join(root, 'reference'), now: fixed });
      await executeRun({ runDir: reference.runDir, models });
      const hashes = async (dir: string) => {
        const found = new Map<string, string>();
        for await (const request of openRunFolder(dir).readRequests())
          found.set(request.requestId, request.requestSha256);
        return found;
      };
      const resumed = await hashes(run.runDir);
      expect([...resumed.keys()].filter((id) => id.includes('.replay.'))).toHaveLength(2);
      expect(resumed).toEqual(await hashes(reference.runDir));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
