const MARKER = Symbol.for('chi.error');

/**
 * An argument to a `@chi/stats` function is unusable. The message says which field, what was
 * expected and what was found; `field` names the option (e.g. `resamples`, `data[37]`).
 *
 * It carries the toolkit-wide `Symbol.for('chi.error')` marker, so `ChiError.isInstance(e)` from
 * `@chi/spec` also recognises it. Check with {@link StatsInputError.isInstance} rather than
 * `instanceof`: the marker works across duplicate copies of the package.
 *
 * @example
 * ```ts
 * try {
 *   clusterBootstrap({ clusters: [], statistic: () => 0, seed: 1 });
 * } catch (error) {
 *   if (StatsInputError.isInstance(error)) console.error(error.field); // 'clusters'
 * }
 * ```
 */
export class StatsInputError extends Error {
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: read through the symbol by isInstance, across package copies.
  private readonly [MARKER] = true;
  /** The option or element at fault, e.g. `level`, `clusters`, `data[12]`. */
  readonly field: string;

  constructor(field: string, problem: string, options?: { cause?: unknown }) {
    super(`${field}: ${problem}`, options);
    this.name = 'StatsInputError';
    this.field = field;
  }

  /** True for a `StatsInputError` from any copy of `@chi/stats`. */
  static isInstance(error: unknown): error is StatsInputError {
    if (typeof error !== 'object' || error === null) return false;
    return (
      (error as Record<symbol, unknown>)[MARKER] === true &&
      (error as { name?: unknown }).name === 'StatsInputError'
    );
  }
}
