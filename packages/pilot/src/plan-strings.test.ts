import { describe, expect, it } from 'vitest';
import { planSha256 } from './manifest';
import { shareEqualPlanStrings } from './plan-strings';
import { planRun } from './run-create';
import { defaultOfflineSettings } from './settings';

describe('shareEqualPlanStrings', () => {
  it('leaves every value, the key order and the hash of the plan unchanged', () => {
    const { plan, frozen } = planRun({
      settings: defaultOfflineSettings({ replicates: 2, loads: [32, 64] }),
      now: () => new Date('2026-01-02T03:04:05.000Z'),
    });
    const parsed = JSON.parse(JSON.stringify(plan));
    const text = JSON.stringify(parsed);
    expect(shareEqualPlanStrings(parsed)).toBe(parsed);
    expect(JSON.stringify(parsed)).toBe(text);
    expect(planSha256(parsed)).toBe(frozen.manifest.planSha256);
  });
});
