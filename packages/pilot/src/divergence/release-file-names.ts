// The divergence release's own evidence files, named in one place that imports nothing: the
// drill-down viewer reads them without loading the release writer (and its chart libraries).

/** Per-world values and world sets of every number (`divergence-worlds.csv`). */
export const DIVERGENCE_WORLDS_FILE = 'divergence-worlds.csv';
/** Task accuracy per system, arm and checkpoint (`divergence-accuracy.csv`). */
export const DIVERGENCE_ACCURACY_FILE = 'divergence-accuracy.csv';
