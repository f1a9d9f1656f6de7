/**
 * The optimal-string-alignment distance of two strings (Damerau-Levenshtein restricted so that
 * no substring is edited twice): insertions, deletions, substitutions and transpositions of two
 * adjacent characters each cost 1. `sytems` is 1 from `systems`, `pilott` 1 from `pilot`.
 */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const columns = b.length + 1;
  const table: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: columns }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => (table[i] as number[])[j] as number;
  for (let i = 1; i < rows; i += 1) {
    for (let j = 1; j < columns; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, at(i - 2, j - 2) + 1);
      (table[i] as number[])[j] = best;
    }
  }
  return at(rows - 1, columns - 1);
}

/**
 * The largest distance at which a candidate is suggested: 2, or 1 for words of up to four
 * characters (two edits turn `out` into `port`, which is no longer a typo).
 */
function threshold(word: string): number {
  return word.length <= 4 ? 1 : 2;
}

/**
 * The candidate closest to `word` (case-insensitively) within the typo threshold, the earlier
 * candidate on a tie; null when none is close or `word` is itself a candidate.
 *
 * @example
 * ```ts
 * closestMatch('--replicate', ['--replicates', '--resamples']); // '--replicates'
 * ```
 */
export function closestMatch(word: string, candidates: readonly string[]): string | null {
  const lower = word.toLowerCase();
  let best: { candidate: string; distance: number } | null = null;
  for (const candidate of candidates) {
    if (candidate === word) return null;
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance <= threshold(word) && (best === null || distance < best.distance))
      best = { candidate, distance };
  }
  return best?.candidate ?? null;
}

/** `; did you mean X?` for the closest candidate, or the empty string. */
export function suggestionText(word: string, candidates: readonly string[]): string {
  const match = closestMatch(word, candidates);
  return match === null ? '' : `; did you mean ${match}?`;
}
