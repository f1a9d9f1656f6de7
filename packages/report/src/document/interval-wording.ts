import { BOOTSTRAP_DEFAULTS, type IntervalMethod } from '@chi/stats';
import { INTERVAL_METHOD_LABELS } from '@chi/stats/internal';

/**
 * How every world-bootstrap interval of a release is read from its replicates: `@chi/stats`'
 * default, which every caller in this package uses (the report states it from here, in one place).
 * Capacity-profile intervals (`profiles.ts`) combine a participant layer and stay plain percentile.
 */
export const RELEASE_INTERVAL_METHOD: IntervalMethod = BOOTSTRAP_DEFAULTS.method;

/**
 * The words for the release's intervals, e.g. "pointwise 95% expanded percentile cluster
 * bootstrap (Hesterberg 2015) intervals over worlds".
 */
export function intervalWords(level: number): string {
  return `pointwise ${Math.round(level * 100)}% ${INTERVAL_METHOD_LABELS[RELEASE_INTERVAL_METHOD]} intervals over worlds`;
}
