import { existsSync } from 'node:fs';
import { canonicalJsonSha256 } from '@chi/run';
import { type ModelCatalog, parseWith, RunFolderDamagedError, type RunManifest } from '@chi/spec';
import { ModelCatalogSchema } from '@chi/spec/internal';
import { type RunPaths, readJsonFile } from './run-folder';

/**
 * The hash frozen in `manifest.catalogSha256`: the SHA-256 of the RFC 8785 JSON of the validated
 * catalog (so the file's whitespace does not matter, and every price, quantization and endpoint
 * does).
 */
export function catalogSha256(catalog: ModelCatalog): string {
  return canonicalJsonSha256(parseWith(ModelCatalogSchema, catalog, 'model catalog'));
}

/**
 * The catalog of a run folder, checked against its manifest: with `manifest.catalogSha256`,
 * `catalog.json` must be there and hash to it (a deleted or edited catalog would let every
 * reservation fall to other prices); without it (no catalog frozen, or a manifest older than the
 * field) the file is read if present. Undefined when the run has none.
 *
 * @throws `RunFolderDamagedError` naming `catalog.json` when it is missing, unreadable or differs
 */
export async function readFrozenCatalog(
  paths: RunPaths,
  manifest: RunManifest,
): Promise<ModelCatalog | undefined> {
  const frozen = manifest.catalogSha256;
  if (!existsSync(paths.catalog)) {
    if (frozen === undefined) return undefined;
    throw new RunFolderDamagedError(
      paths.catalog,
      'it is missing, but manifest.catalogSha256 froze the catalog prices every reservation reads: restore it',
    );
  }
  const catalog = await readJsonFile(paths.catalog, ModelCatalogSchema);
  if (frozen !== undefined && catalogSha256(catalog) !== frozen)
    throw new RunFolderDamagedError(
      paths.catalog,
      `its SHA-256 ${catalogSha256(catalog)} differs from ${frozen} frozen in manifest.catalogSha256: the catalog (prices, quantizations or providers) was edited after the run was created`,
    );
  return catalog;
}
