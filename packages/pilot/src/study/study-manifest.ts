import { existsSync, readFileSync } from 'node:fs';
import { canonicalJson, sha256Hex } from '@chi/run';
import {
  type ModelCatalog,
  RunFolderDamagedError,
  RunManifestSchema,
  type StudyDeclaration,
  StudyDeclarationSchema,
  type StudyFile,
  type SystemSpec,
} from '@chi/spec';
import { ModelCatalogSchema, Sha256Schema } from '@chi/spec/internal';
import { z } from 'zod';
import { UsageError } from '../cli/usage-error';
import { catalogSha256 } from '../run-folder/frozen-catalog';
import { readJsonFile, writeFileAtomic } from '../run-folder/run-folder';
import { studyDeclaration } from './study-file';
import { STUDY_FILE_NAME, type StudyPaths } from './study-folder';
import { hasLiveSystems, resolveStudySystems, type StudyLiveContext } from './study-systems';

/** A study's frozen manifest: its declaration and when it was frozen. */
export interface StudyManifest {
  readonly kind: 'chi-study-manifest';
  /** When the first session was started (the study's day 0). */
  readonly frozenAt: string;
  readonly study: StudyDeclaration;
  /**
   * A live study's systems as every session runs them (endpoints probed, prices declared), frozen
   * before the first scored request; absent for a scripted study (its systems are its names).
   */
  readonly systems?: readonly SystemSpec[];
  /** SHA-256 of the canonical `study-catalog.json` (the OpenRouter models' catalog prices). */
  readonly catalogSha256?: string;
}

const StudyManifestSchema = z.strictObject({
  kind: z.literal('chi-study-manifest'),
  frozenAt: z.iso.datetime(),
  study: StudyDeclarationSchema,
  systems: RunManifestSchema.shape.systems.optional(),
  catalogSha256: Sha256Schema.optional(),
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
 * What a live study's manifest freezes beside its declaration: its resolved systems and, for
 * OpenRouter models, the hash of the catalog written to `study-catalog.json` first. Nothing for a
 * scripted study (its manifest keeps its bytes).
 */
async function frozenLiveSystems(
  paths: StudyPaths,
  declaration: StudyDeclaration,
  live: StudyLiveContext | undefined,
): Promise<Pick<StudyManifest, 'systems' | 'catalogSha256'>> {
  if (!hasLiveSystems(declaration)) return {};
  if (live === undefined)
    throw new UsageError(
      `${paths.study}: a live study is frozen by chi study run or chi study freeze`,
    );
  const { systems, catalog } = await resolveStudySystems(declaration, live, paths.study);
  if (catalog === undefined) return { systems };
  await writeFileAtomic(paths.catalog, canonicalJson(catalog), { durable: true });
  return { systems, catalogSha256: catalogSha256(catalog) };
}

/**
 * The catalog a live study froze (`study-catalog.json`), checked against the study manifest's
 * `catalogSha256`: missing or edited is a damaged study (exit 5). Undefined when none was frozen.
 */
export async function readStudyCatalog(
  paths: StudyPaths,
  manifest: StudyManifest,
): Promise<ModelCatalog | undefined> {
  if (manifest.catalogSha256 === undefined) return undefined;
  if (!existsSync(paths.catalog))
    throw damaged(paths.catalog, 'missing, but the study manifest froze its catalog prices');
  const catalog = await readJsonFile(paths.catalog, ModelCatalogSchema);
  if (catalogSha256(catalog) !== manifest.catalogSha256)
    throw damaged(
      paths.catalog,
      `its SHA-256 ${catalogSha256(catalog)} differs from ${manifest.catalogSha256} frozen in the study manifest: edited after the study was frozen`,
    );
  return catalog;
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
  live?: StudyLiveContext,
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
    ...(await frozenLiveSystems(paths, declaration, live)),
  };
  const text = canonicalJson(manifest);
  const sha256 = sha256Hex(text);
  await writeFileAtomic(paths.manifest, text, { durable: true });
  await writeFileAtomic(paths.manifestSha256, `${sha256}  ${STUDY_FILE_NAME.manifest}\n`, {
    durable: true,
  });
  return { manifest, sha256 };
}
