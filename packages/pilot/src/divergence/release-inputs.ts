import { existsSync } from 'node:fs';
import { cp, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { packReleaseCode } from '@chi/report/internal';
import { runFolderPaths } from '@chi/run/internal';
import { PILOT_PACKAGE_DIR } from '../package-dir';

/**
 * The divergence release's verifier, bundled by this package's build (`tsup.config.ts`):
 * `verifier/verify.mjs` of `@chi/pilot`, the same path from src/ and dist/.
 */
export const DIVERGENCE_VERIFIER_PATH = join(PILOT_PACKAGE_DIR, 'verifier', 'verify.mjs');

/**
 * Copies the raw inputs a divergence release carries beside its manifest, plan and attempt log
 * (the pilot release's: the prompt templates, the request index and every payload exactly as
 * sent), and writes `code/`: the packed `@chi/*` packages that made the release and the
 * self-contained divergence verifier as `code/verify.mjs`.
 *
 * @throws `InvalidArgumentError` when the verifier was not built (`pnpm run build`)
 */
export async function copyDivergenceReleaseInputs(
  runDir: string,
  releaseDir: string,
): Promise<void> {
  const from = runFolderPaths(runDir);
  const to = runFolderPaths(releaseDir);
  for (const [source, target] of [
    [from.promptsDir, to.promptsDir],
    [from.requestIndex, to.requestIndex],
    [from.payloadsDir, to.payloadsDir],
  ] as const) {
    if (existsSync(source)) await cp(source, target, { recursive: true });
  }
  const code = packReleaseCode({
    rootPackageDir: PILOT_PACKAGE_DIR,
    verifierPath: DIVERGENCE_VERIFIER_PATH,
  });
  for (const [path, bytes] of code) {
    const target = join(releaseDir, ...path.split('/'));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, bytes);
  }
}
