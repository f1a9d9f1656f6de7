import { panelCoverage } from '@chi/experiment';
import { describe, expect, it } from 'vitest';
import { captureIo } from '../__fixtures__/cli-io';
import { OPT_IN_EXPERIMENT_IDS, REGISTERED_EXPERIMENTS } from '../experiments/registry';
import { buildRunPlan, requestsPerSystem } from '../plan/plan';
import { buildManifest } from '../run-folder/manifest';
import { scriptedSystemSpec } from '../scripted/scripted-systems';
import { defaultOfflineSettings } from '../settings';
import { parseCli } from './cli-args';
import { runCli } from './cli-main';
import { formatTemplates } from './templates-command';

describe('panelCoverage', () => {
  it('leaves every slot awaiting the specification without experiments', () => {
    expect(panelCoverage([]).map((row) => [row.axis, row.slots, row.awaiting])).toEqual([
      ['R', 4, 4],
      ['M', 8, 8],
      ['C', 6, 6],
      ['A', 6, 6],
      ['I', 6, 6],
    ]);
  });

  it('counts implemented claims only, and never below zero awaiting', () => {
    const many = Array.from({ length: 5 }, (_, k) => ({
      id: `r${k}`,
      slots: [{ axis: 'R' as const, coverage: 'implemented' as const, what: 'x' }],
    }));
    const partial = {
      id: 'p',
      slots: [{ axis: 'R' as const, coverage: 'partial' as const, what: 'y' }],
    };
    const [r] = panelCoverage([...many, partial]);
    expect(r?.implemented).toHaveLength(5);
    expect(r?.partial).toEqual([{ experimentId: 'p', what: 'y' }]);
    expect(r?.awaiting).toBe(0);
  });
});

describe('chi templates', () => {
  it('says what the seeds give (counts per axis, no texts) and lists our experiments, claiming no specification test', async () => {
    const cli = captureIo({ cwd: '/' });
    expect(await runCli(['templates'], cli.io)).toBe(0);
    const out = cli.out();
    expect(out).toBe(formatTemplates(REGISTERED_EXPERIMENTS, OPT_IN_EXPERIMENT_IDS));
    expect(out).toContain(
      'Registered experiments: memory, history, behavior, goal-persistence, feedback-valence\n',
    );
    expect(out).toContain(
      'Opt-in (run only when --templates names them): goal-persistence, feedback-valence\n',
    );
    expect(out).toContain(
      "30 tests (4 R, 8 M, 6 C, 6 A, 6 I). The seeds give these counts per axis, not the tests' texts, so none of the 30 is implemented here.",
    );
    // EIMC is our memory experiment, not one of the specification's 8 M tests
    expect(out).not.toMatch(/\d+ of \d+ implemented|1 implemented/);
    expect(out).toContain(
      'R: the specification has 4 tests (texts not given); our experiments on this axis: 1\n',
    );
    expect(out).toContain(
      'M: the specification has 8 tests (texts not given); our experiments on this axis:',
    );
    expect(out).toMatch(/ {2}ours {5}memory: effective indexed memory capacity/);
    expect(out).toMatch(/ {2}partial {2}history: /);
    expect(out.match(/ {2}partial {2}behavior: /g)).toHaveLength(4);
    // the opt-in environments are partial task indicators
    expect(out).toMatch(/ {2}partial {2}goal-persistence: /);
    expect(out).toMatch(/ {2}partial {2}feedback-valence: /);
  });

  it('has a --help text', async () => {
    const cli = captureIo({ cwd: '/' });
    expect(await runCli(['templates', '--help'], cli.io)).toBe(0);
    expect(cli.out()).toMatch(/^chi templates — /);
  });
});

describe('chi pilot --templates', () => {
  it('leaves out every experiment not named, as its own switch would', () => {
    const command = parseCli(['pilot', '--templates', 'behavior']);
    if (command.command !== 'pilot') throw new Error('expected a pilot command');
    expect(command.templates).toEqual(['behavior']);
    expect(command.loads).toEqual([]);
    expect(command.history).toBe(false);
    expect(command.behavior).toBe(true);
  });

  it('plans only the selected experiments', () => {
    const settings = defaultOfflineSettings({
      systems: [scriptedSystemSpec('perfect')],
      templates: ['history', 'behavior'],
    });
    const manifest = buildManifest({
      settings,
      worldSeeds: [7],
      prompts: [],
      generators: [],
      createdAt: new Date('2026-09-01T00:00:00.000Z'),
    });
    expect(manifest.experiments.memory).toBeNull();
    // 3 histories x (5 probes + 4 updates) + 2 behavioral halves
    expect(Object.fromEntries(requestsPerSystem(buildRunPlan(manifest)))).toEqual({ perfect: 29 });
  });

  it('plans an opt-in environment only when named: 3 trials x 4 steps, 3 trials x 2 requests', () => {
    const settings = defaultOfflineSettings({
      systems: [scriptedSystemSpec('perfect')],
      templates: ['goal-persistence', 'feedback-valence'],
    });
    const manifest = buildManifest({
      settings,
      worldSeeds: [7],
      prompts: [],
      generators: [],
      createdAt: new Date('2026-09-01T00:00:00.000Z'),
    });
    expect(manifest.experiments.memory).toBeNull();
    expect(manifest.experiments['goal-persistence']).toEqual({
      generator: 'goal-persistence-world@1',
      steps: 4,
    });
    expect(Object.fromEntries(requestsPerSystem(buildRunPlan(manifest)))).toEqual({ perfect: 18 });
  });

  it('rejects an unknown template and --loads without memory (usage errors)', async () => {
    const unknown = captureIo({ cwd: '/' });
    expect(await runCli(['pilot', '--plan', '--templates', 'memory,moods'], unknown.io)).toBe(2);
    expect(unknown.err()).toContain(
      'unknown template "moods"; registered: memory, history, behavior, goal-persistence, feedback-valence',
    );
    const loads = captureIo({ cwd: '/' });
    expect(await runCli(['pilot', '--templates', 'history', '--loads', '32'], loads.io)).toBe(2);
    expect(loads.err()).toContain('--loads sets the memory experiment');
  });
});
