/**
 * Order statistics without a full sort: an interval needs two to four values of 2,000 replicates,
 * and sorting all of them was a fifth of the pilot-sized bootstrap (docs/benchmarks/throughput.md).
 *
 * Floyd & Rivest's selection (R. W. Floyd, R. L. Rivest, "Algorithm 489: The algorithm SELECT",
 * CACM 18(3), 1975), in the form of mourner's `quickselect`: it partitions around the k-th value
 * of a small sample first, so one selection costs about n comparisons.
 */

function swap(values: Float64Array, i: number, j: number): void {
  const held = values[i] as number;
  values[i] = values[j] as number;
  values[j] = held;
}

/**
 * Rearranges `values[left..right]` so that `values[k]` holds the value a sort of that range would
 * put there, everything before it is <= it and everything after it >= it. The range must hold no
 * NaN, and not both -0 and +0 (selection does not tell them apart; a sort puts -0 first).
 */
export function selectOrderStatistic(
  values: Float64Array,
  k: number,
  left: number,
  right: number,
): void {
  let lo = left;
  let hi = right;
  while (hi > lo) {
    if (hi - lo > 600) {
      // Narrow [lo, hi] to a range that holds the k-th value with high probability.
      const n = hi - lo + 1;
      const m = k - lo + 1;
      const z = Math.log(n);
      const s = 0.5 * Math.exp((2 * z) / 3);
      const sd = 0.5 * Math.sqrt((z * s * (n - s)) / n) * (m - n / 2 < 0 ? -1 : 1);
      const newLo = Math.max(lo, Math.floor(k - (m * s) / n + sd));
      const newHi = Math.min(hi, Math.floor(k + ((n - m) * s) / n + sd));
      selectOrderStatistic(values, k, newLo, newHi);
    }
    const pivot = values[k] as number;
    let i = lo;
    let j = hi;
    swap(values, lo, k);
    if ((values[hi] as number) > pivot) swap(values, lo, hi);
    while (i < j) {
      swap(values, i, j);
      i++;
      j--;
      while ((values[i] as number) < pivot) i++;
      while ((values[j] as number) > pivot) j--;
    }
    if (values[lo] === pivot) swap(values, lo, j);
    else {
      j++;
      swap(values, j, hi);
    }
    if (j <= k) lo = j + 1;
    if (k <= j) hi = j - 1;
  }
}

/** Moves the largest of `values[left..right]` to `values[right]`. */
function placeLargest(values: Float64Array, left: number, right: number): void {
  let best = right;
  for (let i = left; i < right; i++) if ((values[i] as number) > (values[best] as number)) best = i;
  swap(values, best, right);
}

/**
 * Rearranges the first `n` entries of `values` so that each of `positions` (ascending, each in
 * `[0, n)`, repeats allowed) holds the value a full ascending sort would put there; reading only
 * those positions then gives the same numbers as reading the sorted array. Same restrictions as
 * {@link selectOrderStatistic}.
 */
export function placeOrderStatistics(
  values: Float64Array,
  n: number,
  positions: readonly number[],
): void {
  let lo = 0;
  for (let i = 0; i < positions.length; i++) {
    const k = positions[i] as number;
    if (k < lo) continue;
    if (positions[i + 1] === k + 1 && k - lo < n - 1 - k) {
      // A pair near the bottom: select its upper value, then its lower is the largest below it.
      selectOrderStatistic(values, k + 1, lo, n - 1);
      placeLargest(values, lo, k);
      lo = k + 2;
      i++;
      continue;
    }
    selectOrderStatistic(values, k, lo, n - 1);
    lo = k + 1;
  }
}
