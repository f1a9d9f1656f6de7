import { fileURLToPath } from 'node:url';

// The one module that locates this package's folder from its own URL: it sits one level below
// the folder in `src/` and, bundled, in `dist/` and `verifier/`, so modules in subfolders ask it
// instead of counting `../` from where they are.

/** This package's folder (the same from `src/`, `dist/` and the bundled `verifier/`). */
export const REPORT_PACKAGE_DIR = fileURLToPath(new URL('../', import.meta.url));
