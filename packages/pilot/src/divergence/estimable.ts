/**
 * The divergence release's rule for a statistic defined in only some of the planned worlds
 * (docs/protocol.md, "Not estimable: too few defined worlds", issue 31): with fewer than
 * {@link MIN_DEFINED_WORLDS} defined worlds it keeps its estimate but gets no interval and no
 * simultaneous band, and says why. Pure.
 */

/**
 * The fewest defined worlds a partially defined statistic needs for an interval. A statistic
 * defined in every planned world is never held to it (a 2-world run keeps its intervals).
 */
export const MIN_DEFINED_WORLDS = 4;

/**
 * Why a statistic defined in `defined` of `planned` worlds gets no interval, or null when the rule
 * does not apply (defined everywhere, or in at least {@link MIN_DEFINED_WORLDS} worlds). The
 * sentence names the count and the world count that would give {@link MIN_DEFINED_WORLDS} defined
 * worlds at the observed rate (`ceil(MIN * planned / defined)`).
 */
export function notEstimableReason(defined: number, planned: number): string | null {
  if (defined >= planned || defined >= MIN_DEFINED_WORLDS) return null;
  const needed = defined === 0 ? null : Math.ceil((MIN_DEFINED_WORLDS * planned) / defined);
  return `not estimable: defined in ${defined} of ${planned} worlds; an interval needs ${MIN_DEFINED_WORLDS} defined worlds${needed === null ? '' : ` (about ${needed} worlds at this rate)`}`;
}
