import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { packReleaseCode } from '@chi/report/internal';
import { DIVERGENCE_VERIFIER_PATH } from '../divergence/release-inputs';
import { PILOT_PACKAGE_DIR } from '../package-dir';
import { writeStudyReport } from './study-report';

/**
 * Writes `code/` into the study folder: the packed `@chi/*` packages of this installation and the
 * self-contained verifier (`node code/verify.mjs .` inside the study recomputes it, as
 * `chi verify STUDY_DIR` does).
 */
export async function writeStudyCode(dir: string): Promise<void> {
  const code = packReleaseCode({
    rootPackageDir: PILOT_PACKAGE_DIR,
    verifierPath: DIVERGENCE_VERIFIER_PATH,
  });
  for (const [path, bytes] of code) {
    const target = join(dir, ...path.split('/'));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, bytes);
  }
}

/**
 * Writes the study report (`study-report.json`, `study-report.md`) and the study's `code/`, so the
 * study folder is one recomputable release; returns the Markdown path.
 */
export async function writeStudyRelease(dir: string): Promise<string> {
  const written = await writeStudyReport(dir);
  await writeStudyCode(dir);
  return written;
}
