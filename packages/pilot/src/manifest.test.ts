import { describe, expect, it } from 'vitest';
import { FEATURE_SCHEMAS, RUN_POLICIES } from './manifest';
import { prepareRun } from './run-create';
import { defaultOfflineSettings } from './settings';

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
    ]);
    expect(manifest.featureSchemas).toEqual(FEATURE_SCHEMAS);
  });
});
