import { describe, expect, it } from 'vitest';
import type { PilotCommand } from './cli-args';
import { parseCli } from './cli-args';
import { settingsFor } from './cli-main';
import { checkExperimentContract } from './experiments/contract';
import { memoryExperiment } from './experiments/memory';
import { prepareRun } from './run-create';
import { scriptedSystemSpec } from './scripted-systems';
import { defaultOfflineSettings } from './settings';

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
