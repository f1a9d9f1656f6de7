// Its own module so that `chi view`'s divergence drill-down (view-data.ts) can name the file
// without importing release-evidence.ts, whose module graph reaches the report's chart libraries
// (view-cli-imports.test.ts).

/** Per-world values and world sets of every number (`divergence-worlds.csv`). */
export const DIVERGENCE_WORLDS_FILE = 'divergence-worlds.csv';
