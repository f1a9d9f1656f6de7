/**
 * How answered strings are compared with expected ones (docs/protocol.md#scoring, "Comparing
 * values"). Normalization never turns an invalid answer into a valid one; it only forgives
 * formatting that cannot change the meaning of the registered token.
 */

/**
 * A memory value for comparison: surrounding whitespace removed and lowercased. Registered values
 * are 8 lowercase hex characters, so `" 0A1B2C3D "` means the same value; anything else (a `0x`
 * prefix, inner spaces) stays different and fails.
 *
 * @example
 * ```ts
 * normalizeProbeValue(' 0A1B2C3D\n'); // '0a1b2c3d'
 * ```
 */
export function normalizeProbeValue(value: string): string {
  return value.trim().toLowerCase();
}

/**
 * A memory source for comparison: surrounding whitespace removed, otherwise exact (case and inner
 * spacing matter: provenance must be reproduced, not paraphrased).
 */
export function normalizeProbeSource(source: string): string {
  return source.trim();
}

/**
 * An exact (R) answer for comparison: Unicode NFC, surrounding whitespace removed, inner
 * whitespace runs collapsed to one space. Case is kept: a symbolic answer may use symbols that
 * differ only by case.
 *
 * @example
 * ```ts
 * normalizeExactAnswer('  aB\t c '); // 'aB c'
 * ```
 */
export function normalizeExactAnswer(answer: string): string {
  return answer.normalize('NFC').trim().replace(/\s+/g, ' ');
}

/**
 * A choice or decision answer for comparison: {@link normalizeExactAnswer}, then lowercased.
 * Options are registered IDs; scoring checks that an item's options stay distinct under this
 * normalization, so ignoring case can never merge two options.
 *
 * @example
 * ```ts
 * normalizeChoiceAnswer('  Route\tNorth '); // 'route north'
 * ```
 */
export function normalizeChoiceAnswer(answer: string): string {
  return normalizeExactAnswer(answer).toLowerCase();
}
