/** Micro-USD in one USD: shares are whole micro-dollars, rounded down. */
const MICROS_PER_USD = 1_000_000n;

/** The whole micro-dollars of `usd`, rounded down (never more than `usd`). */
function microsAtMost(usd: number): bigint {
  let micros = BigInt(Math.floor(usd * 1e6));
  // usd * 1e6 can round up past the true product (binary fractions): step back until it fits
  while (micros > 0n && Number(micros) / 1e6 > usd) micros -= 1n;
  return micros;
}

/**
 * Each shard's preregistered share of the run's ceiling, in USD, by 1-based index (index 0 is
 * unused): proportional to its number of planned requests, in whole micro-dollars rounded down,
 * so the shares sum to at most the ceiling (whole micro-dollars are exact: their sum never
 * rounds up past it). `requestCounts` is {@link shardRequestCounts}'s list.
 */
export function shardCeilingsUsd(ceilingUsd: number, requestCounts: readonly number[]): number[] {
  const totalMicros = microsAtMost(ceilingUsd);
  const totalRequests = BigInt(requestCounts.reduce((sum, count) => sum + count, 0));
  return requestCounts.map((count, index) => {
    if (index === 0 || totalRequests === 0n) return 0;
    const micros = (totalMicros * BigInt(count)) / totalRequests;
    return Number(micros) / Number(MICROS_PER_USD);
  });
}
