import { join } from 'node:path';
import type { ReleaseCode } from '@chi/report';
import { packReleaseCode } from '@chi/report/internal';
import { RUN_FILE_NAME, RUN_FOLDER_DIRECTORY } from '@chi/run/internal';
import { PILOT_PACKAGE_DIR } from '../package-dir';

/**
 * The divergence release's verifier, bundled by this package's build (`tsup.config.ts`):
 * `verifier/verify.mjs` of `@chi/pilot`, the same path from src/ and dist/.
 */
export const DIVERGENCE_VERIFIER_PATH = join(PILOT_PACKAGE_DIR, 'verifier', 'verify.mjs');

/** The raw files a divergence release copies from its run folder, by name. */
const RAW_FILES: ReadonlySet<string> = new Set([
  RUN_FILE_NAME.manifest,
  RUN_FILE_NAME.manifestSha256,
  RUN_FILE_NAME.plan,
  RUN_FILE_NAME.attempts,
  RUN_FILE_NAME.requestIndex,
]);

/** The raw folders a divergence release copies from its run folder, as path prefixes. */
const RAW_FOLDERS = [`${RUN_FOLDER_DIRECTORY.prompts}/`, `${RUN_FOLDER_DIRECTORY.payloads}/`];

/**
 * Whether a run-relative path is a raw input of a divergence release: the frozen manifest and its
 * hash, the plan, the attempt log, the request index, the prompt templates and every payload as
 * sent. Everything else a divergence release holds is recomputed from these, or is `code/`.
 */
export function isDivergenceRawPath(path: string): boolean {
  return RAW_FILES.has(path) || RAW_FOLDERS.some((folder) => path.startsWith(folder));
}

/**
 * `code/` of a divergence release: the packed `@chi/*` packages that made it and the
 * self-contained divergence verifier as `code/verify.mjs`.
 *
 * @throws `InvalidArgumentError` when the verifier was not built (`pnpm run build`)
 */
export function divergenceReleaseCode(): ReleaseCode {
  return packReleaseCode({
    rootPackageDir: PILOT_PACKAGE_DIR,
    verifierPath: DIVERGENCE_VERIFIER_PATH,
  });
}
