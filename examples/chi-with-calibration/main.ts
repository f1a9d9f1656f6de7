/**
 * `pnpm start`: build a human calibration from (SYNTHETIC) human data, then CHI from an axis
 * profile against it, and CHI without one.
 *
 * CHI = 100 * prod_j h_j^w_j, h_j = exp(-0.5 * mean_l ((z_jl - mu_jl) / s_jl)^2). It is defined
 * only against a human calibration (mu, s per feature), which `buildCalibration` estimates from
 * one row per participant, test and feature (mu = mean, s = SD with n - 1). Here both inputs are
 * made up and labelled: the human data are SYNTHETIC (`"synthetic": true` in the header) and the
 * profile is a FIXTURE. The script prints the results, then checks them against the values worked
 * out by hand in README.md; it exits non-zero on any difference.
 */
import { readFileSync } from 'node:fs';
import { AXIS_IDS, axisSimilarity, buildCalibration, chi, EQUAL_AXIS_WEIGHTS } from '@chi/scoring';
import {
  AxisProfileSchema,
  type ChiResult,
  HumanDataHeaderSchema,
  HumanDataRowSchema,
  InvalidArgumentError,
  parseWith,
} from '@chi/spec';

const readText = (name: string): string =>
  readFileSync(new URL(`./data/${name}`, import.meta.url), 'utf8');
const readJson = (name: string): unknown => JSON.parse(readText(name));

// Parse at the edge: line 1 is the header, every other line one measurement row. A malformed line
// stops here with a ValidationError naming the line; bad data (a duplicate participant, a missing
// feature, zero spread) stops in buildCalibration, naming the row.
const [headerLine, ...rowLines] = readText('synthetic-human-data.jsonl').trim().split('\n');
const header = parseWith(
  HumanDataHeaderSchema,
  JSON.parse(headerLine ?? ''),
  'data/synthetic-human-data.jsonl line 1',
);
const rows = rowLines.map((line, index) =>
  parseWith(
    HumanDataRowSchema,
    JSON.parse(line),
    `data/synthetic-human-data.jsonl line ${index + 2}`,
  ),
);
const calibration = buildCalibration(rows, {
  synthetic: header.synthetic,
  description: header.description,
  rowLabel: (index) => `data/synthetic-human-data.jsonl line ${index + 2}`,
});
const profileFile = readJson('axis-profile.json') as {
  evidenceClass: string;
  note: string;
  profile: unknown;
};
const profile = parseWith(AxisProfileSchema, profileFile.profile, 'data/axis-profile.json profile');

const calibrationLabel = calibration.synthetic
  ? 'SYNTHETIC calibration (made up; no human was measured)'
  : 'human calibration';
const format = (result: ChiResult): string =>
  result.value === null ? `null (${result.reason})` : result.value.toFixed(2);

console.log(`Profile: ${profileFile.evidenceClass.toUpperCase()} (${profileFile.note})`);
console.log(
  `Calibration: ${calibration.id}, ${calibrationLabel}; built from ${calibration.build?.participants} participants (mu = mean, s = SD with n - 1), sha256 ${calibration.build?.contentSha256}\n`,
);

// 1. Without a calibration CHI is undefined: null with the reason, never a number.
const withoutCalibration = chi(profile, null);
console.log(`CHI without a calibration: ${format(withoutCalibration)}`);

// 2. With the calibration: h_j per axis, then CHI with the baseline equal weights 1/5.
const withCalibration = chi(profile, calibration);
console.log(
  `CHI against ${calibration.id}: ${format(withCalibration)}  <- ${calibration.synthetic ? 'computed from a SYNTHETIC calibration: it demonstrates the arithmetic and is NOT a human-likeness measurement' : 'against a human calibration'}`,
);
for (const axis of AXIS_IDS) {
  const h = withCalibration.axisSimilarity?.[axis];
  console.log(
    `  h_${axis} = ${h?.toFixed(4)}  (weight ${withCalibration.weights[axis]?.toFixed(2)})`,
  );
}

// 3. The weights are a declared convention, not a finding: another choice gives another number.
const otherWeights = { R: 0.1, M: 0.4, C: 0.1, A: 0.2, I: 0.2 };
const reweighted = chi(profile, calibration, otherWeights);
console.log(
  `CHI with weights ${JSON.stringify(otherWeights)}: ${format(reweighted)} (same synthetic calibration)`,
);

// 4. A profile that lacks a calibrated feature is refused, not silently compared on fewer features.
let refusal = '';
try {
  const { I: _dropped, ...otherAxes } = profile.axes;
  chi({ axes: { ...otherAxes, I: { constraint_satisfaction: 0.9 } } }, calibration);
} catch (error) {
  if (!InvalidArgumentError.isInstance(error)) throw error;
  refusal = error.message;
}
console.log(`A profile missing I.records_used: refused with "${refusal}"`);

// Self-check against the hand-worked values (README.md): standardized distances R 0; M +1, +1;
// C -2; A 0; I 0, -2. So h = exp(-0.5 * mean of squares): R 1, M e^-0.5, C e^-2, A 1, I e^-1.
const failures: string[] = [];
function expectNear(actual: number | null | undefined, expected: number, what: string): void {
  if (typeof actual !== 'number' || Math.abs(actual - expected) > 1e-9)
    failures.push(`${what}: expected ${expected}, found ${actual}`);
}
const expectedH = { R: 1, M: Math.exp(-0.5), C: Math.exp(-2), A: 1, I: Math.exp(-1) };
for (const axis of AXIS_IDS)
  expectNear(withCalibration.axisSimilarity?.[axis], expectedH[axis], `h_${axis}`);
expectNear(withCalibration.value, 100 * Math.exp(-(0.5 + 2 + 1) / 5), 'CHI, equal weights');
expectNear(
  reweighted.value,
  100 * Math.exp(-(0.4 * 0.5 + 0.1 * 2 + 0.2 * 1)),
  'CHI, other weights',
);
expectNear(
  axisSimilarity(profile.axes.M ?? {}, calibration.axes.M ?? {}),
  Math.exp(-0.5),
  'axisSimilarity(M) (notebook_bytes is measured but not calibrated: ignored)',
);
if (withoutCalibration.value !== null || withoutCalibration.axisSimilarity !== null)
  failures.push('CHI without a calibration must be null, with no axis similarities');
if (withCalibration.calibrationId !== calibration.id)
  failures.push(
    `calibrationId: expected ${calibration.id}, found ${withCalibration.calibrationId}`,
  );
if (JSON.stringify(withCalibration.weights) !== JSON.stringify(EQUAL_AXIS_WEIGHTS))
  failures.push('the default weights must be 1/5 each');
if (!refusal.includes('records_used')) failures.push('the refusal must name the missing feature');
if (!calibration.synthetic) failures.push('the example calibration must be labelled synthetic');
if (!/^synthetic-calibration-[0-9a-f]{12}$/.test(calibration.id))
  failures.push(`the calibration ID must come from its content hash, found ${calibration.id}`);
if (calibration.build?.participants !== 3)
  failures.push('the calibration must count 3 participants');

if (failures.length > 0) {
  console.error(`\nself-check FAILED:\n- ${failures.join('\n- ')}`);
  process.exitCode = 1;
} else {
  console.log('\nself-check passed: every value equals its hand-worked value (SYNTHETIC inputs)');
}
