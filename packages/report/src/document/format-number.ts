import type { IntervalEstimate } from '@chi/analysis';
import type { Ratio } from '@chi/spec/internal';

/**
 * Formats a number for the report with a fixed number of decimals, so the same value always prints
 * the same way; null prints as `null` (never 0).
 *
 * @example
 * ```ts
 * formatNumber(0.123456); // '0.123'
 * formatNumber(null); // 'null'
 * ```
 */
export function formatNumber(value: number | null, decimals = 3): string {
  if (value === null) return 'null';
  const text = value.toFixed(decimals);
  // -0.000 reads as a sign error; print it as 0.000
  return /^-0\.0*$/.test(text) ? text.slice(1) : text;
}

/** `0.812 [0.700, 0.900]`, or `0.812 (no interval: fewer than two complete worlds)`. */
export function formatEstimate(estimate: IntervalEstimate, decimals = 3): string {
  const point = formatNumber(estimate.estimate, decimals);
  if (estimate.intervalNote === null) {
    return `${point} [${formatNumber(estimate.lower, decimals)}, ${formatNumber(estimate.upper, decimals)}]`;
  }
  return `${point} (no interval: ${intervalNoteText(estimate.intervalNote)})`;
}

/** Words for an interval note. */
export function intervalNoteText(note: NonNullable<IntervalEstimate['intervalNote']>): string {
  switch (note) {
    case 'fewer_than_two_complete_worlds':
      return 'fewer than two complete worlds';
    case 'no_defined_replicates':
      return 'undefined in every bootstrap replicate';
    case 'undefined_estimate':
      return 'undefined on the data';
  }
}

/** `5/8 (0.625)`, or `0/0 (no observations)`. */
export function formatRatio(ratio: Ratio, decimals = 3): string {
  if (ratio.rate === null) return `${ratio.numerator}/${ratio.denominator} (no observations)`;
  return `${ratio.numerator}/${ratio.denominator} (${formatNumber(ratio.rate, decimals)})`;
}

/** A USD amount with 4 decimals: `$0.0123`. */
export function formatUsd(value: number): string {
  return `$${value.toFixed(4)}`;
}
