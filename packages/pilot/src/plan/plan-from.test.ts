import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../cli/usage-error';
import { sampleSd, spreadsOf, varianceModelFromRelease } from './plan-from';
import { planPrecision } from './plan-precision';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'chi-plan-from-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('spreadsOf (hand-worked)', () => {
  it('sd of 0.2, 0.4, 0.6, 0.8 is sqrt(0.2/3) = 0.2582; a constant paired difference has sd 0', () => {
    expect(sampleSd([0.2, 0.4, 0.6, 0.8])).toBeCloseTo(Math.sqrt(0.2 / 3), 12);
    expect(sampleSd([1])).toBeNull();
    const values = [0.2, 0.4, 0.6, 0.8].flatMap((v, i) => [
      { cell: 'N=32', systemId: 'a', worldSeed: String(i), value: v },
      { cell: 'N=32', systemId: 'b', worldSeed: String(i), value: v - 0.1 },
    ]);
    const spread = spreadsOf(values);
    expect(spread.sd).toBeCloseTo(Math.sqrt(0.2 / 3), 12);
    expect(spread.sdDifference).toBeCloseTo(0, 12);
  });
});

describe('varianceModelFromRelease', () => {
  function release(files: Record<string, string>): void {
    mkdirSync(join(dir, 'chart-data'));
    for (const [name, text] of Object.entries(files))
      writeFileSync(join(dir, 'chart-data', name), text);
  }

  it('reads Q_M spreads from the per-world values and keeps the worst case where it cannot', async () => {
    release({
      'per-world-memory.csv': [
        'systemId,condition,load,worldSeed,blockComplete,qualityScore',
        'a,notebook,32,1,true,0.2',
        'a,notebook,32,2,true,0.6',
        'b,notebook,32,1,true,0.0',
        'b,notebook,32,2,true,0.6',
        'b,blank,32,1,true,0.9',
        'a,notebook,32,3,false,1',
      ].join('\n'),
      'per-world-history.csv':
        'systemId,worldSeed,blockComplete,history,checkpoint,inDistanceWorldSet,divergence\n',
      'per-world-behavior.csv': 'systemId,worldSeed,blockComplete,R,C,A,I,frameInducedChangeRate\n',
      'chart-data.json': JSON.stringify({ run: { analysis: { primaryCheckpoint: 3 } } }),
    });
    const model = await varianceModelFromRelease(dir);
    const qm = model.quantities[0];
    // a: sd(0.2, 0.6) = 0.2828; b: sd(0, 0.6) = 0.4243 -> 0.4243; differences 0.2, 0 -> 0.1414
    expect(qm?.sd).toBeCloseTo(Math.sqrt(0.18), 12);
    expect(qm?.sdDifference).toBeCloseTo(Math.sqrt(0.02), 12);
    expect(model.quantities[1]?.sd).toBeCloseTo(Math.SQRT1_2, 12);
    expect(model.source).toContain(
      'binomial worst case kept for excess divergence, behavior indicator',
    );
    const plan = planPrecision({ worlds: 4, level: 0.95, targetHalfWidth: 0.1, model });
    // (1.96 x 0.4243 / 0.1)^2 = 69.15 -> 70
    expect(plan.rows[0]?.worldsForTarget).toBe(70);
  });

  it("sizes the excess divergence at the release's preregistered primary checkpoint", async () => {
    const history = (checkpoint: number, values: readonly number[]) =>
      values.map((v, i) => `a,${i + 1},true,A,${checkpoint},true,${v}`);
    release({
      'per-world-memory.csv': 'systemId,condition,load,worldSeed,blockComplete,qualityScore\n',
      'per-world-history.csv': [
        'systemId,worldSeed,blockComplete,history,checkpoint,inDistanceWorldSet,divergence',
        ...history(1, [0, 1]),
        ...history(3, [0.5, 0.5, 0.5]),
      ].join('\n'),
      'per-world-behavior.csv': 'systemId,worldSeed,blockComplete,R,C,A,I,frameInducedChangeRate\n',
      'chart-data.json': JSON.stringify({ run: { analysis: { primaryCheckpoint: 1 } } }),
    });
    const model = await varianceModelFromRelease(dir);
    // checkpoint 1: sd(0, 1) = 0.7071; checkpoint 3 would give 0
    expect(model.quantities[1]?.sd).toBeCloseTo(Math.SQRT1_2, 12);
  });

  it('refuses a folder without per-world values, naming the flag and the file', async () => {
    await expect(varianceModelFromRelease(dir)).rejects.toThrow(UsageError);
    await expect(varianceModelFromRelease(dir)).rejects.toThrow(
      /--plan-from: .*per-world-memory\.csv/,
    );
  });
});
