import { createHash } from 'node:crypto';
import {
  HumanCalibrationSchema,
  type HumanDataRow,
  InvalidArgumentError,
  ValidationError,
} from '@chi/spec';
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assertCalibrationIntact,
  buildCalibration,
  calibrationContentSha256,
} from './build-calibration';
import { chi } from './chi';
import { canonicalSha256 } from './content-hash';

// SYNTHETIC rows for tests only: three made-up participants, two features.
const row = (
  participant: string,
  axis: HumanDataRow['axis'],
  feature: string,
  value: number,
  extra: Partial<HumanDataRow> = {},
): HumanDataRow => ({ participant, axis, test: `behavior.${axis}`, feature, value, ...extra });
const rows: HumanDataRow[] = [
  row('p1', 'R', 'accuracy', 0.5, { groups: { cohort: 'a' } }),
  row('p1', 'M', 'retrieval', 2, { groups: { cohort: 'a' } }),
  row('p2', 'R', 'accuracy', 0.6, { groups: { cohort: 'b' } }),
  row('p2', 'M', 'retrieval', 4, { groups: { cohort: 'b' } }),
  row('p3', 'R', 'accuracy', 0.7, { groups: { cohort: 'a' } }),
  row('p3', 'M', 'retrieval', 9, { groups: { cohort: 'a' } }),
];
const options = { synthetic: true, description: 'SYNTHETIC: unit-test rows' } as const;

function issuesOf(thunk: () => unknown): { path: string; message: string }[] {
  try {
    thunk();
  } catch (error) {
    if (ValidationError.isInstance(error)) return [...error.issues];
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('buildCalibration', () => {
  it('estimates mu = mean and s = SD with n - 1 (worked by hand)', () => {
    const calibration = buildCalibration(rows, options);
    // accuracy: mean 0.6, squared deviations 0.01 + 0 + 0.01 = 0.02, / (3 - 1) = 0.01, s = 0.1.
    expect(calibration.axes.R?.accuracy?.mu).toBeCloseTo(0.6, 12);
    expect(calibration.axes.R?.accuracy?.s).toBeCloseTo(0.1, 12);
    // retrieval: mean 5, deviations 9 + 1 + 16 = 26, / 2 = 13, s = sqrt(13).
    expect(calibration.axes.M?.retrieval).toEqual({ mu: 5, s: Math.sqrt(13) });
    expect(calibration.build?.participants).toBe(3);
    expect(calibration.build?.estimator).toBe('sample-sd-n-minus-1');
    expect(calibration.build?.tests).toEqual({
      R: { accuracy: 'behavior.R' },
      M: { retrieval: 'behavior.M' },
    });
    expect(calibration.sample?.participants.map((p) => [p.id, p.groups.cohort])).toEqual([
      ['p1', 'a'],
      ['p2', 'b'],
      ['p3', 'a'],
    ]);
    expect(calibration.synthetic).toBe(true);
    expect(HumanCalibrationSchema.parse(calibration)).toEqual(calibration);
    expect(Object.isFrozen(calibration.axes)).toBe(true);
  });

  it('derives the ID from the content hash: canonical JSON SHA-256 without id and hash', () => {
    const calibration = buildCalibration(rows, options);
    const { id: _id, build, ...rest } = calibration;
    const { contentSha256, ...buildRest } = build as NonNullable<typeof build>;
    const expected = createHash('sha256')
      .update(canonicalize({ ...rest, build: buildRest }) as string)
      .digest('hex');
    expect(contentSha256).toBe(expected);
    expect(calibrationContentSha256(calibration)).toBe(expected);
    expect(calibration.id).toBe(`synthetic-calibration-${expected.slice(0, 12)}`);
    expect(buildCalibration(rows, { ...options, synthetic: false }).id).toMatch(
      /^calibration-[0-9a-f]{12}$/,
    );
  });

  it('gives the same calibration for any order of the rows (property)', () => {
    const reference = buildCalibration(rows, options);
    fc.assert(
      fc.property(fc.shuffledSubarray(rows, { minLength: rows.length }), (shuffled) => {
        expect(buildCalibration(shuffled, options)).toEqual(reference);
      }),
      { numRuns: 50 },
    );
  });

  it('names the row of a non-finite value', () => {
    const bad = rows.map((r, i) => (i === 3 ? { ...r, value: Number.NaN } : r));
    expect(issuesOf(() => buildCalibration(bad, options))).toContainEqual({
      path: 'row 4.value',
      message: 'expected a finite number, found NaN',
    });
  });

  it('names both rows of a duplicate participant/feature', () => {
    const bad = [...rows, row('p2', 'R', 'accuracy', 0.9, { groups: { cohort: 'b' } })];
    expect(issuesOf(() => buildCalibration(bad, options))).toEqual([
      {
        path: 'row 7',
        message: 'duplicate: participant "p2" already has feature R.accuracy on row 3',
      },
    ]);
  });

  it('names the participant missing a feature, at its first row', () => {
    const bad = rows.filter((_, i) => i !== 3);
    expect(issuesOf(() => buildCalibration(bad, options))).toEqual([
      {
        path: 'row 3',
        message:
          'participant "p2" (first seen here) is missing feature(s) M.retrieval that other participants have',
      },
    ]);
  });

  it('refuses a feature with zero spread, naming its first row', () => {
    const flat = rows.map((r) => (r.feature === 'accuracy' ? { ...r, value: 0.5 } : r));
    expect(issuesOf(() => buildCalibration(flat, options))).toEqual([
      {
        path: 'row 1',
        message:
          'feature R.accuracy (first row here) has zero spread: all 3 participants have 0.5, so its scale s would be 0',
      },
    ]);
  });

  it('refuses groups that change between rows, a feature under two tests, and one participant', () => {
    const bad = rows.map((r, i) =>
      i === 1 ? { ...r, groups: { cohort: 'z' } } : i === 4 ? { ...r, test: 'other' } : r,
    );
    const issues = issuesOf(() => buildCalibration(bad, options));
    expect(issues.map((issue) => issue.path)).toEqual(['row 2.groups', 'row 5.test']);
    expect(issuesOf(() => buildCalibration(rows.slice(0, 2), options))).toEqual([
      { path: '', message: 'expected at least 2 participants, found 1' },
    ]);
  });

  it('uses the caller row labels (file lines)', () => {
    const bad = rows.map((r, i) => (i === 0 ? { ...r, value: Number.POSITIVE_INFINITY } : r));
    expect(
      issuesOf(() =>
        buildCalibration(bad, { ...options, rowLabel: (i) => `data.jsonl line ${i + 2}` }),
      )[0]?.path,
    ).toBe('data.jsonl line 2.value');
  });

  it('feeds chi: a participant at the centroid scores 100', () => {
    const calibration = buildCalibration(rows, options);
    const result = chi({ axes: { R: { accuracy: 0.6 }, M: { retrieval: 5 } } }, calibration, {
      R: 0.5,
      M: 0.5,
    });
    expect(result.value).toBeCloseTo(100, 10);
    expect(result.calibrationId).toBe(calibration.id);
  });
});

describe('assertCalibrationIntact', () => {
  it('accepts a built calibration and refuses an edited or unbuilt one', () => {
    const calibration = buildCalibration(rows, options);
    expect(() => assertCalibrationIntact(calibration)).not.toThrow();
    const edited = structuredClone(calibration) as typeof calibration & {
      axes: { R: { accuracy: { mu: number } } };
    };
    edited.axes.R.accuracy.mu = 0.61;
    expect(() => assertCalibrationIntact(edited)).toThrow(/edited after it was built/);
    const { build: _b, sample: _s, ...handWritten } = calibration;
    expect(() => assertCalibrationIntact(handWritten)).toThrow(InvalidArgumentError);
  });
});

describe('canonicalSha256', () => {
  it('is the SHA-256 of RFC 8785 text, independent of key order', () => {
    expect(canonicalSha256({ b: 1, a: [true, null] })).toBe(
      createHash('sha256').update('{"a":[true,null],"b":1}').digest('hex'),
    );
    expect(() => canonicalSha256({ x: Number.NaN })).toThrow(/value.x/);
  });
});
