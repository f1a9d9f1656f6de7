/**
 * `pnpm start`: runs the eval on data/eval.jsonl, prints its report, then checks every headline
 * number against the value worked out by hand from the fixture rule (make-fixture.ts). Exits
 * non-zero on any difference, so CI (scripts/docs-check.mjs runs it from the README) notices a change in behaviour.
 */
import { readFileSync } from 'node:fs';
import { formatReport, runEval, TAU } from './eval';
import {
  CORRECT_PER_STRATUM,
  fixtureLines,
  INVENTED_LURES,
  LOADS,
  type Load,
  WORLDS,
} from './make-fixture';

const path = new URL('./data/eval.jsonl', import.meta.url);
const result = runEval(path.pathname);
console.log(formatReport(result));

const failures: string[] = [];
function expectNear(actual: number | null | undefined, expected: number, what: string): void {
  if (typeof actual !== 'number' || Math.abs(actual - expected) > 1e-12)
    failures.push(`${what}: expected ${expected}, found ${actual}`);
}
function expectEqual<T>(actual: T, expected: T, what: string): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected))
    failures.push(`${what}: expected ${JSON.stringify(expected)}, found ${JSON.stringify(actual)}`);
}

// The committed file is exactly what the deterministic generator writes.
expectEqual(
  readFileSync(path, 'utf8'),
  `${fixtureLines().join('\n')}\n`,
  'data/eval.jsonl (run `pnpm fixture` after an intended change)',
);

// Hand-derived values: at load N, each content factor is the world-mean of k_w / 8 and
// 1 - f = 1 - m / 8, so Q_M of mean factors = (c^5 * (1 - m/8))^(1/6) with equal alphas 1/6.
for (const load of LOADS as readonly Load[]) {
  const counts = CORRECT_PER_STRATUM[load];
  const meanCorrect = counts.reduce((sum, k) => sum + k / 8, 0) / counts.length;
  const oneMinusF = 1 - INVENTED_LURES[load] / 8;
  const point = result.curve.find((p) => p.load === load);
  for (const factor of ['r', 't', 's', 'u', 'i'] as const)
    expectNear(point?.factors[factor], meanCorrect, `factor ${factor} at N=${load}`);
  expectNear(point?.factors.oneMinusF, oneMinusF, `1-f at N=${load}`);
  expectNear(
    point?.qualityScore,
    (meanCorrect ** 5 * oneMinusF) ** (1 / 6),
    `Q_M of mean factors at N=${load}`,
  );
  const within = counts.reduce((sum, k) => sum + ((k / 8) ** 5 * oneMinusF) ** (1 / 6), 0) / WORLDS;
  expectNear(
    result.withinWorld.find((p) => p.load === load)?.meanWithinWorldQualityScore,
    within,
    `mean within-world Q_M at N=${load}`,
  );
  // The bootstrap's point estimate is the same statistic on the original worlds.
  expectNear(
    result.intervals[`Q_M N=${load}`]?.estimate,
    point?.qualityScore ?? Number.NaN,
    `bootstrap estimate at N=${load}`,
  );
}
// Q_M: 1, 0.948, 0.716, 0.479 -> EIMC_0.8 = 64 (a capacity: 128 fails), 0.7 -> 128, 0.9 -> 64.
expectEqual(
  { value: result.eimc.value, status: result.eimc.status, tau: result.eimc.tau },
  { value: 64, status: 'capacity', tau: TAU },
  'EIMC_0.8',
);
expectEqual(
  result.sensitivity.map((s) => [s.tau, s.value, s.status]),
  [
    [0.7, 128, 'capacity'],
    [0.8, 64, 'capacity'],
    [0.9, 64, 'capacity'],
  ],
  'EIMC sensitivity',
);
// Every resample of worlds passes 64 (worst case c = 7/8 gives 0.895) and fails 128 (best case
// c = 6/8 gives 0.770), so the EIMC interval is exactly [64, 64].
expectEqual(result.intervals[`EIMC_${TAU}`]?.interval, { lower: 64, upper: 64 }, 'EIMC interval');
expectEqual(result.intervals['Q_M N=32']?.interval, { lower: 1, upper: 1 }, 'Q_M interval at N=32');
// Odd worlds write one invalid answer per content stratum at loads 64, 128, 256: 2 x 3 x 5 = 30.
expectEqual(result.answerCounts.invalid, 30, 'invalid answers');
expectEqual(result.evidenceClasses, ['fixture'], 'evidence classes');

if (failures.length > 0) {
  console.error(`\nself-check FAILED:\n- ${failures.join('\n- ')}`);
  process.exitCode = 1;
} else {
  console.log('\nself-check passed: every number equals its hand-derived FIXTURE value');
}
