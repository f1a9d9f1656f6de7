import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunScores } from '@chi/analysis';
import { behavior, history } from '@chi/experiments';
import { renderHistoryProbe } from '@chi/experiments/internal';
import { verifyRelease } from '@chi/report';
import { readRunFolder, scoreRun, scorerOfBlock } from '@chi/report/internal';
import { describe, expect, it } from 'vitest';
import { runPilot } from '../pilot';
import { scriptedSystemSpec } from '../scripted/scripted-systems';
import { defaultOfflineSettings } from '../settings';
import { checkExperimentContract } from './contract';
import type { AnyExperiment } from './experiment';
import { PILOT_EXPERIMENTS } from './registry';

/** The behavior and history modules as the pilot's registry holds them. */
const behaviorModule: AnyExperiment = behavior.experiment;
const historyExperiment: AnyExperiment = history.experiment;

function observationsOf(scores: RunScores, id: string): readonly { blockComplete: boolean }[] {
  const scored = scores.modules.get(id);
  if (scored === undefined) throw new Error(`RunScores has no scores of ${id}`);
  return scored.observations;
}

describe.each(PILOT_EXPERIMENTS.map((experiment) => [experiment.id, experiment] as const))(
  'experiment contract: %s',
  (_id, experiment: AnyExperiment) => {
    it('declares, plans, renders and takes scripted replies as the contract requires', () => {
      const result = checkExperimentContract(experiment);
      expect(result.problems).toEqual([]);
      expect(result.requests.length).toBeGreaterThan(0);
      expect(result.replies.size).toBe(result.requests.length);
    });

    it('is scored by the scorer the report registers for it, every kind of its blocks', () => {
      // docs/architecture.md, "Scoring and analysis": scoreRun feeds BUILT_IN_SCORERS in one pass
      for (const kind of experiment.kinds)
        expect(scorerOfBlock(kind)?.experimentId).toBe(experiment.id);
    });

    it('runs alone through runPilot: scored, analysed, released and verified', async () => {
      const root = mkdtempSync(join(tmpdir(), `chi-contract-${experiment.id}-`));
      try {
        const outcome = await runPilot({
          settings: defaultOfflineSettings({
            systems: [scriptedSystemSpec('perfect'), scriptedSystemSpec('abstainer')],
            replicates: 2,
            loads: [32],
            controlsAtLoad: 32,
            resamples: 50,
            templates: [experiment.id],
          }),
          runDir: join(root, 'run'),
          now: () => new Date('2026-09-01T00:00:00.000Z'),
        });
        expect(outcome.exitCode).toBe(0);
        expect(outcome.releaseDir).not.toBeNull();
        const records = await readRunFolder(outcome.runDir);
        expect(new Set(records.plan.requests.map((r) => r.task))).toEqual(
          new Set(experiment.tasks),
        );
        const scores = scoreRun(records);
        const own = observationsOf(scores, experiment.id);
        // two worlds x two systems x (one block per world, memory: load 32 and its controls)
        expect(own.length).toBeGreaterThanOrEqual(4);
        expect(own.every((observation) => observation.blockComplete)).toBe(true);
        for (const other of PILOT_EXPERIMENTS.filter((e) => e.id !== experiment.id))
          expect(observationsOf(scores, other.id)).toEqual([]);
        const report = await verifyRelease(outcome.releaseDir ?? '');
        expect(report.mismatches).toEqual([]);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    }, 300_000);
  },
);

describe('the contract finds broken experiments', () => {
  it('names a render that drops the nonce and a plan whose dependency is not planned', () => {
    const broken: AnyExperiment = {
      ...historyExperiment,
      render: (context) =>
        renderHistoryProbe(context.prompts, {
          environments: [],
          notes: '',
          nonce: '0000000000000000',
        }),
      plan: (context) =>
        historyExperiment.plan({ ...context, params: { checkpoints: 5 } }).map((unit) => ({
          ...unit,
          requestsFor: (systemId: string) =>
            unit.requestsFor(systemId).map((request) => ({
              ...request,
              dependsOn: request.dependsOn.map((id) => `${id}.missing`),
            })),
        })),
    };
    const { problems } = checkExperimentContract(broken);
    expect(problems.some((p) => p.includes('does not carry its nonce'))).toBe(true);
    expect(problems.some((p) => p.includes('not planned before it'))).toBe(true);
  });

  it('names missing declarations and a task the experiment does not declare', () => {
    const broken: AnyExperiment = {
      ...behaviorModule,
      seedPassages: [],
      control: ' ',
      tasks: ['history_probe'],
    };
    const { problems } = checkExperimentContract(broken);
    expect(problems).toContain('seedPassages: quote the seed passage it implements');
    expect(problems).toContain('control is empty');
    expect(problems.some((p) => p.includes('not declared in tasks'))).toBe(true);
  });

  it('names a malformed ID', () => {
    const { problems } = checkExperimentContract({ ...behaviorModule, id: 'Bad Id' });
    expect(problems[0]).toBe('id "Bad Id" must match ^[a-z][a-z0-9-]*$');
  });
});
