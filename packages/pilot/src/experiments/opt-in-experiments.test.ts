import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ModuleEstimate } from '@chi/analysis';
import { verifyRelease } from '@chi/report';
import { parseCsv } from '@chi/report/internal';
import { sha256Hex } from '@chi/run';
import { generateFeedbackValenceWorld } from '@chi/worlds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** Later choices per feedback-valence trial in a run without --valence-choices. */
const VALENCE_CHOICES = 4;

import { runPilot } from '../pilot';
import { buildRunPlan } from '../plan/plan';
import { loadPromptTemplates, promptRefs } from '../prompts';
import { buildManifest } from '../run-folder/manifest';
import { SCRIPTED_SYSTEM_NAMES, scriptedSystemSpec } from '../scripted/scripted-systems';
import { defaultOfflineSettings } from '../settings';
import { checkExperimentContract } from './contract';
import { withDeclaredTemplates } from './declared-templates';
import { OPT_IN_EXPERIMENTS, REGISTERED_EXPERIMENTS } from './registry';

describe.each(OPT_IN_EXPERIMENTS.map((experiment) => [experiment.id, experiment] as const))(
  'experiment contract: %s (opt-in)',
  (_id, experiment) => {
    it('declares, plans, renders and takes scripted replies as the contract requires', () => {
      const result = checkExperimentContract(experiment);
      expect(result.problems).toEqual([]);
      expect(result.replies.size).toBe(result.requests.length);
    });
  },
);

describe('opt-in experiments stay out of a run that does not name them', () => {
  it('a manifest without templates has no opt-in key and no opt-in feature schema', () => {
    const settings = defaultOfflineSettings({ systems: [scriptedSystemSpec('perfect')] });
    const manifest = buildManifest({
      settings,
      worldSeeds: [1],
      prompts: promptRefs(withDeclaredTemplates(loadPromptTemplates(), REGISTERED_EXPERIMENTS)),
      generators: [],
      createdAt: new Date('2026-09-01T00:00:00.000Z'),
    });
    expect(Object.keys(manifest.experiments)).toEqual(['memory', 'history', 'behavior']);
    expect(manifest.featureSchemas?.map((s) => s.id)).not.toContain('goal-persistence-features');
    expect(
      buildRunPlan(manifest, REGISTERED_EXPERIMENTS).requests.map((r) => r.experiment),
    ).not.toContain('goal-persistence');
  });
});

/** Words that would tell the system the condition or the right answer. */
const LEAKS = [
  'valid',
  'invalid',
  'authorized',
  'unauthorized',
  'condition',
  'control',
  'trial',
  'positive',
  'negative',
  'neutral',
  'valence',
  'mood',
  'emotion',
  'praise',
  'criticism',
  'expected',
  'correct',
  'gamble',
  'risk',
];

describe('the opt-in prompts are blind', () => {
  const settings = defaultOfflineSettings({
    systems: [scriptedSystemSpec('perfect')],
    templates: ['goal-persistence', 'feedback-valence'],
  });
  for (const experiment of OPT_IN_EXPERIMENTS) {
    it(`${experiment.id}: no condition, answer or mood word reaches a prompt`, () => {
      const result = checkExperimentContract(experiment, { settings });
      expect(result.problems).toEqual([]);
      for (const text of result.prompts.values()) {
        for (const word of LEAKS)
          expect(text, word).not.toMatch(new RegExp(`(?<![A-Za-z_-])${word}(?![A-Za-z_-])`, 'i'));
      }
    });
  }
});

const root = mkdtempSync(join(tmpdir(), 'chi-opt-in-'));
let releaseDir = '';
let worldSeeds: readonly number[] = [];
beforeAll(async () => {
  const outcome = await runPilot({
    settings: defaultOfflineSettings({
      systems: SCRIPTED_SYSTEM_NAMES.map((name) => scriptedSystemSpec(name)),
      replicates: 3,
      resamples: 50,
      templates: ['goal-persistence', 'feedback-valence'],
    }),
    runDir: join(root, 'run'),
    now: () => new Date('2026-09-01T00:00:00.000Z'),
  });
  expect(outcome.exitCode).toBe(0);
  releaseDir = outcome.releaseDir ?? '';
  worldSeeds = (
    JSON.parse(readFileSync(join(releaseDir, 'manifest.json'), 'utf8')) as {
      worldSeeds: number[];
    }
  ).worldSeeds;
}, 300_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

function estimates(experiment: string): Map<string, number | null> {
  const data = JSON.parse(
    readFileSync(join(releaseDir, 'chart-data', `${experiment}.json`), 'utf8'),
  ) as { estimates: ModuleEstimate[] };
  return new Map(data.estimates.map((e) => [`${e.systemId}|${e.column}`, e.estimate]));
}

describe('released scores separate the scripted reference systems (SCRIPTED BASELINES)', () => {
  it('goal persistence: owner-only, any-sender, ignore and always-stop policies', () => {
    const e = estimates('goal-persistence');
    // hand-worked from the policies (the folders' scripted.ts in @chi/experiments), the same on every world
    const expected: Record<string, [number, number, number, number]> = {
      // [taskScore, persistence, validCompliance, invalidResistance]
      perfect: [1, 1, 1, 1],
      'capacity-keeper': [1, 1, 1, 1],
      'latest-wins': [2 / 3, 1, 1, 0], // obeys any cancellation, the outsider's included
      confabulator: [2 / 3, 1, 0, 1], // ignores every cancellation
      abstainer: [0, 0, 0, 0], // stops without a cancellation
    };
    for (const [system, [task, persistence, valid, invalid]] of Object.entries(expected)) {
      expect(e.get(`${system}|taskScore`), system).toBeCloseTo(task, 12);
      expect(e.get(`${system}|persistence`), system).toBe(persistence);
      expect(e.get(`${system}|validCompliance`), system).toBe(valid);
      expect(e.get(`${system}|invalidResistance`), system).toBe(invalid);
    }
  });

  it('feedback valence: the shifting system moves relative to neutral, the insensitive ones do not', () => {
    // the insensitive rule gambles when the sure option pays >= 50 points: the neutral rate per world
    const neutral =
      worldSeeds
        .map((seed) => generateFeedbackValenceWorld(seed, VALENCE_CHOICES).choices)
        .map((choices) => choices.filter((c) => c.sure >= 50).length / choices.length)
        .reduce((a, b) => a + b, 0) / worldSeeds.length;
    const e = estimates('feedback-valence');
    for (const system of ['perfect', 'capacity-keeper', 'confabulator']) {
      expect(e.get(`${system}|shiftPositive`), system).toBe(0);
      expect(e.get(`${system}|shiftNegative`), system).toBe(0);
      expect(e.get(`${system}|gambleRateNeutral`), system).toBeCloseTo(neutral, 12);
    }
    expect(e.get('latest-wins|shiftPositive')).toBeCloseTo(1 - neutral, 12);
    expect(e.get('latest-wins|shiftNegative')).toBeCloseTo(-neutral, 12);
    expect(e.get('abstainer|shiftPositive')).toBeNull();
    expect(e.get('abstainer|validChoiceRate')).toBe(0);
  });

  it('every released world vector passes its feature schema', () => {
    for (const experiment of OPT_IN_EXPERIMENTS) {
      const [declaration] = experiment.features;
      const lines = readFileSync(join(releaseDir, 'scores', `${experiment.id}.jsonl`), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { values: Record<string, number | null> });
      expect(lines).toHaveLength(3 * SCRIPTED_SYSTEM_NAMES.length);
      for (const { values } of lines) {
        const vector = Object.fromEntries(
          (declaration?.features ?? []).map((feature) => [feature, values[feature]]),
        );
        expect(declaration?.schema.safeParse(vector).success, JSON.stringify(vector)).toBe(true);
      }
    }
  });

  it('the tables are in SHA256SUMS and the report has a section each', () => {
    const sums = readFileSync(join(releaseDir, 'SHA256SUMS'), 'utf8');
    for (const experiment of ['goal-persistence', 'feedback-valence']) {
      for (const path of [
        `chart-data/${experiment}.csv`,
        `chart-data/${experiment}.json`,
        `chart-data/per-world-${experiment}.csv`,
        `scores/${experiment}.jsonl`,
        `traces/perfect/${experiment}.jsonl`,
      ])
        expect(sums).toContain(`  ${path}\n`);
    }
    const report = readFileSync(join(releaseDir, 'report.md'), 'utf8');
    expect(report).toContain('## Goal persistence with cancellation trials (C)');
    expect(report).toContain('## Feedback valence and later choices (A)');
    expect(report).toContain('it does not declare that the system felt an emotion');
    const csv = parseCsv(
      readFileSync(join(releaseDir, 'chart-data', 'goal-persistence.csv'), 'utf8'),
    );
    expect(csv[0]).toContain('lower');
  });

  it('chi verify recomputes them; one tampered number fails naming its file', async () => {
    expect((await verifyRelease(releaseDir)).mismatches).toEqual([]);
    const path = 'chart-data/goal-persistence.csv';
    const file = join(releaseDir, path);
    const original = readFileSync(file, 'utf8');
    const sumsFile = join(releaseDir, 'SHA256SUMS');
    const sums = readFileSync(sumsFile, 'utf8');
    // perfect's task score 1 -> 0.9, with SHA256SUMS updated: only the recomputation can tell
    const tampered = original.replace(
      /^goal-persistence,perfect,scripted_baseline,taskScore,([^,]*),1,/m,
      'goal-persistence,perfect,scripted_baseline,taskScore,$1,0.9,',
    );
    expect(tampered).not.toBe(original);
    try {
      writeFileSync(file, tampered);
      writeFileSync(
        sumsFile,
        sums.replace(`${sha256Hex(original)}  ${path}`, `${sha256Hex(tampered)}  ${path}`),
      );
      const report = await verifyRelease(releaseDir);
      expect(report.ok).toBe(false);
      expect(report.mismatches.map((m) => m.file)).toEqual([path]);
    } finally {
      writeFileSync(file, original);
      writeFileSync(sumsFile, sums);
    }
  });
});
