import { fileURLToPath } from 'node:url';

// The one module that locates this package's folder from its own URL: it sits one level below
// the folder in `src/` and, bundled, in `dist/`, so modules in subfolders ask it instead of
// counting `../` from where they are.

/**
 * This package's folder (the same from `src/` and `dist/`): the root whose `@chi/*` dependency
 * closure a release packs as the code that made it, from the installed package folders.
 */
export const PILOT_PACKAGE_DIR = fileURLToPath(new URL('../', import.meta.url));
