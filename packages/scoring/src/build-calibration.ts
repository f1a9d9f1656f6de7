import {
  type HumanCalibration,
  type HumanDataRow,
  InvalidArgumentError,
  ValidationError,
} from '@chi/spec';
import { type CalibrationBuild, SCALE_ESTIMATOR } from '@chi/spec/internal';
import { estimateCalibrationAxes } from './calibration-estimate';
import { canonicalSha256 } from './content-hash';
import { humanSampleFromRows } from './human-sample';

/** Options of {@link buildCalibration}. */
export interface BuildCalibrationOptions {
  /** True when the rows were generated from a model (no human was measured). */
  readonly synthetic: boolean;
  /** Who was measured and how; copied into the calibration. */
  readonly description: string;
  /** Start of the ID; default `calibration` (`synthetic-calibration` for synthetic data). */
  readonly idPrefix?: string;
  /** Names row `index` in error messages; default `row <index + 1>`. */
  readonly rowLabel?: (index: number) => string;
  /** What is being validated, for error messages; default `human data`. */
  readonly subject?: string;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}

/**
 * The content hash of a calibration: SHA-256 of the canonical JSON of everything but `id` and
 * `build.contentSha256` (so the ID can be derived from it).
 */
export function calibrationContentSha256(calibration: HumanCalibration): string {
  const { id: _id, build, ...rest } = calibration;
  if (build === undefined) return canonicalSha256(rest, 'calibration');
  const { contentSha256: _hash, ...buildContent } = build;
  return canonicalSha256({ ...rest, build: buildContent }, 'calibration');
}

/**
 * Whether a built calibration is intact: its `build.contentSha256` matches its content and its ID
 * ends with the hash's first 12 hex digits.
 *
 * @throws InvalidArgumentError naming what does not match (or that the calibration was not built).
 */
export function assertCalibrationIntact(
  calibration: HumanCalibration,
  field = 'calibration',
): void {
  if (calibration.build === undefined || calibration.sample === undefined)
    throw new InvalidArgumentError(
      field,
      'expected a built calibration (with build and sample, as `chi calibrate` writes): its content hash and participants are needed',
    );
  const actual = calibrationContentSha256(calibration);
  if (actual !== calibration.build.contentSha256)
    throw new InvalidArgumentError(
      `${field}.build.contentSha256`,
      `the content hashes to ${actual}, the file says ${calibration.build.contentSha256}: it was edited after it was built`,
    );
  if (!calibration.id.endsWith(`-${actual.slice(0, 12)}`))
    throw new InvalidArgumentError(
      `${field}.id`,
      `expected an ID ending in -${actual.slice(0, 12)}, found ${calibration.id}`,
    );
}

/**
 * Builds a frozen human calibration from human-data rows (one per participant, test and
 * feature): per feature mu = mean and s = sample SD (n - 1) over participants (see
 * `estimateCalibrationAxes` for why), the participant count, the test of every feature, the
 * participant sample (for bootstrap and held-out checks), a content hash and an ID derived from
 * it. The result is deeply frozen. Pure and deterministic.
 *
 * @throws ValidationError naming every bad row: non-finite values, duplicate participant/feature
 *   rows, missing features, inconsistent tests or groups, fewer than 2 participants, and features
 *   with zero spread (s would be 0 and every distance infinite).
 * @example
 * ```ts
 * const calibration = buildCalibration(rows, { synthetic: true, description: 'SYNTHETIC ...' });
 * calibration.id; // 'synthetic-calibration-1a2b3c4d5e6f'
 * chi(profile, calibration).value;
 * ```
 */
export function buildCalibration(
  rows: readonly HumanDataRow[],
  options: BuildCalibrationOptions,
): HumanCalibration {
  const label = options.rowLabel ?? ((index: number) => `row ${index + 1}`);
  const subject = options.subject ?? 'human data';
  const sample = humanSampleFromRows(rows, { rowLabel: label, subject });
  const estimate = estimateCalibrationAxes(sample.participants);
  if (estimate.zeroSpread.length > 0) {
    throw new ValidationError(
      subject,
      estimate.zeroSpread.map(({ axis, feature, value }) => {
        const first = rows.findIndex((row) => row.axis === axis && row.feature === feature);
        return {
          path: label(first),
          message: `feature ${axis}.${feature} (first row here) has zero spread: all ${sample.participants.length} participants have ${value}, so its scale s would be 0`,
        };
      }),
    );
  }
  const build: CalibrationBuild = {
    estimator: SCALE_ESTIMATOR,
    participants: sample.participants.length,
    tests: sample.tests,
    contentSha256: '0'.repeat(64),
  };
  const draft: HumanCalibration = {
    id: 'pending',
    description: options.description,
    synthetic: options.synthetic,
    axes: estimate.axes,
    build,
    sample: { participants: [...sample.participants] },
  };
  const contentSha256 = calibrationContentSha256(draft);
  const prefix = options.idPrefix ?? (options.synthetic ? 'synthetic-calibration' : 'calibration');
  return deepFreeze({
    ...draft,
    id: `${prefix}-${contentSha256.slice(0, 12)}`,
    build: { ...build, contentSha256 },
  });
}
