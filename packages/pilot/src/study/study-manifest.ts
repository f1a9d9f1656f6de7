import { existsSync, readFileSync } from 'node:fs';
import { canonicalJson, sha256Hex } from '@chi/run';
import {
  RunFolderDamagedError,
  type StudyDeclaration,
  StudyDeclarationSchema,
  type StudyFile,
} from '@chi/spec';
import { z } from 'zod';
import { writeFileAtomic } from '../run-folder';
import { studyDeclaration } from './study-file';
import { STUDY_FILE_NAME, type StudyPaths } from './study-folder';

/** A study's frozen manifest: its declaration and when it was frozen. */
export interface StudyManifest {
  readonly kind: 'chi-study-manifest';
  /** When the first session was started (the study's day 0). */
  readonly frozenAt: string;
  readonly study: StudyDeclaration;
}

const StudyManifestSchema = z.strictObject({
  kind: z.literal('chi-study-manifest'),
  frozenAt: z.iso.datetime(),
  study: StudyDeclarationSchema,
});

/** A frozen study manifest with its canonical text's SHA-256. */
export interface FrozenStudy {
  readonly manifest: StudyManifest;
  readonly sha256: string;
}

function damaged(path: string, problem: string): RunFolderDamagedError {
  return new RunFolderDamagedError(path, problem);
}

/** Reads the frozen study manifest, checking its hash file; null when the study is not frozen yet. */
export function readFrozenStudy(paths: StudyPaths): FrozenStudy | null {
  if (!existsSync(paths.manifest)) return null;
  const text = readFileSync(paths.manifest, 'utf8');
  const sha256 = sha256Hex(text);
  let recorded = '';
  try {
    recorded = readFileSync(paths.manifestSha256, 'utf8').split(/\s/)[0] ?? '';
  } catch {
    throw damaged(paths.manifestSha256, 'missing: the study manifest cannot be checked');
  }
  if (recorded !== sha256)
    throw damaged(
      paths.manifest,
      `its SHA-256 is ${sha256}, ${STUDY_FILE_NAME.manifestSha256} records ${recorded}: edited after it was frozen`,
    );
  const parsed = StudyManifestSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw damaged(paths.manifest, 'not a study manifest');
  return { manifest: parsed.data as StudyManifest, sha256 };
}

/**
 * The study's frozen manifest: frozen now (canonical JSON, hashed, written durably) before the
 * first session sends anything, or read back and compared with the study file, which may not
 * change once frozen (a damaged study, exit 5).
 */
export async function freezeStudy(
  paths: StudyPaths,
  file: StudyFile,
  now: Date,
): Promise<FrozenStudy> {
  const declaration = studyDeclaration(file);
  const existing = readFrozenStudy(paths);
  if (existing !== null) {
    if (canonicalJson(existing.manifest.study) !== canonicalJson(declaration))
      throw damaged(
        paths.study,
        `differs from the frozen ${STUDY_FILE_NAME.manifest} (a study cannot change after its first session; start a new study folder)`,
      );
    return existing;
  }
  const manifest: StudyManifest = {
    kind: 'chi-study-manifest',
    frozenAt: now.toISOString(),
    study: declaration,
  };
  const text = canonicalJson(manifest);
  const sha256 = sha256Hex(text);
  await writeFileAtomic(paths.manifest, text, { durable: true });
  await writeFileAtomic(paths.manifestSha256, `${sha256}  ${STUDY_FILE_NAME.manifest}\n`, {
    durable: true,
  });
  return { manifest, sha256 };
}
