import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildCalibration } from '@chi/scoring';
import type { ChisEntry } from '@chi/spec';
import { PILOT_FEATURE_SCHEMA, PILOT_FEATURES } from '@chi/spec/internal';
import { syntheticHumanData } from '@chi/worlds/test';
import { describe, expect, it } from 'vitest';
import { copyOfSharedOfflineRun } from '../__fixtures__/offline-run';
import { finishRun } from '../pilot';
import { defaultOfflineSettings } from '../settings';
import { FEATURE_SCHEMAS, RUN_POLICIES } from './manifest';
import { prepareRun } from './run-create';

describe('the manifest records what the framework lists', () => {
  const { manifest } = prepareRun({
    settings: defaultOfflineSettings({ replicates: 1, loads: [32] }),
    now: () => new Date('2026-09-01T00:00:00.000Z'),
  }).frozen;

  it('a null calibration ID, the memory, reset and scheduler policies, and versioned feature schemas', () => {
    expect(manifest.calibrationId).toBeNull();
    expect(manifest.policies).toEqual(RUN_POLICIES);
    expect(Object.keys(manifest.policies ?? {})).toEqual(['memory', 'reset', 'scheduler']);
    expect(manifest.featureSchemas?.map((f) => `${f.id}@${f.version}`)).toEqual([
      'memory-quality-factors@1',
      'history-profile@1',
      'history-decision-vector@1',
      'behavior-indicators@1',
      'pilot-features-v1@1',
    ]);
    expect(manifest.featureSchemas).toEqual(FEATURE_SCHEMAS);
  });

  it('freezes the preregistered primary checkpoint (default 3, or as the settings say)', () => {
    expect(manifest.analysis.primaryCheckpoint).toBe(3);
    const other = prepareRun({
      settings: defaultOfflineSettings({ replicates: 1, loads: [32], primaryCheckpoint: 1 }),
      now: () => new Date('2026-09-01T00:00:00.000Z'),
    }).frozen.manifest;
    expect(other.analysis.primaryCheckpoint).toBe(1);
    expect(() =>
      defaultOfflineSettings({ replicates: 1, loads: [32], primaryCheckpoint: -1 }),
    ).toThrow(/primaryCheckpoint/);
  });

  it('declares the feature schema a calibration is compared against, feature for feature', () => {
    const declared = manifest.featureSchemas?.find((f) => f.id === PILOT_FEATURE_SCHEMA);
    expect(declared?.features).toEqual(PILOT_FEATURES.map((f) => `${f.axis}.${f.feature}`));
    expect(declared?.features).toEqual([
      'R.accuracy',
      'R.abstain_rate',
      'M.retrieval',
      'M.false_memory_rate',
      'C.accuracy',
      'C.abstain_rate',
      'A.accuracy',
      'A.frame_change_rate',
      'I.accuracy',
      'I.abstain_rate',
    ]);
    for (const f of PILOT_FEATURES) expect(declared?.coding).toContain(f.definition);
  });

  it("resolves a calibrated run's chiComparison.featureSchema in its own featureSchemas", () => {
    const calibration = buildCalibration(syntheticHumanData({ seed: 1, participants: 8 }), {
      synthetic: true,
      description: 'SYNTHETIC: unit test',
    });
    const calibrated = prepareRun({
      settings: defaultOfflineSettings({ replicates: 1, loads: [32], calibration }),
      now: () => new Date('2026-09-01T00:00:00.000Z'),
    }).frozen.manifest;
    const referenced = calibrated.chiComparison?.featureSchema;
    expect(referenced).toBe('pilot-features-v1');
    expect(calibrated.featureSchemas?.map((f) => f.id)).toContain(referenced);
  });

  it("names exactly the features the run's CHIS entries carry", async () => {
    // a copy of the default offline run shared with other files: finishRun writes into it
    const run = await copyOfSharedOfflineRun();
    try {
      await finishRun(run.runDir, { release: false });
      const entry = JSON.parse(
        readFileSync(join(run.runDir, 'chis', 'perfect.jsonl'), 'utf8').split('\n')[0] ?? '',
      ) as ChisEntry;
      const schema = (id: string) => FEATURE_SCHEMAS.find((f) => f.id === id)?.features;
      expect(Object.keys(entry.profile)).toEqual(schema('history-profile'));
      expect(entry.decisionVector).toHaveLength(schema('history-decision-vector')?.length ?? 0);
    } finally {
      rmSync(run.runDir, { recursive: true, force: true });
    }
  }, 300_000);
});
