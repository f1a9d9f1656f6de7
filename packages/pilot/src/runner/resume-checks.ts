import { existsSync } from 'node:fs';
import { RUN_FILE_NAME, streamRunJsonl } from '@chi/run/internal';
import {
  AttemptRecordSchema,
  InvalidArgumentError,
  RunFolderDamagedError,
  type RunManifest,
} from '@chi/spec';
import { RunStatusSchema } from '@chi/spec/internal';
import { apiKeyForSystem } from '../endpoints/system-models';
import type { FrozenManifest } from '../run-folder/manifest';
import { type RunPaths, readJsonFile, writeJsonFile } from '../run-folder/run-folder';
import { apiKeyEnvOf } from '../settings';
import { checkRequestRecords } from './request-records-check';

/** The manifest hash of the first attempt record, or null when the log has none. */
async function firstRecordManifest(paths: RunPaths): Promise<string | null> {
  for await (const record of streamRunJsonl(paths.attempts, AttemptRecordSchema))
    return record.manifestSha256;
  return null;
}

/**
 * The manifest is the one the run started with: `status.json` (or, without it, the first attempt
 * record) records its hash. Checked before the ledger is opened, so that a manifest edited with
 * its `manifest.sha256` rewritten (a raised ceiling, say) is named as the manifest, not as a
 * ledger that disagrees with it.
 *
 * @throws `RunFolderDamagedError` naming `manifest.json`
 */
export async function checkManifestAnchor(paths: RunPaths, frozen: FrozenManifest): Promise<void> {
  const recorded = existsSync(paths.status)
    ? {
        file: RUN_FILE_NAME.status,
        sha256: (await readJsonFile(paths.status, RunStatusSchema)).manifestSha256,
      }
    : { file: RUN_FILE_NAME.attempts, sha256: await firstRecordManifest(paths) };
  if (recorded.sha256 === null || recorded.sha256 === frozen.sha256) return;
  throw new RunFolderDamagedError(
    paths.manifest,
    `it hashes to ${frozen.sha256} (and ${RUN_FILE_NAME.manifestSha256} was rewritten to match), but ${recorded.file} records the run's manifest as ${recorded.sha256}: the manifest was changed after the run started (its ceiling, prices, caps or any other setting)`,
  );
}

/**
 * Every live system's key is in the environment variable its manifest entry names: a resume
 * never sends a request without the key the run was created with (a keyless endpoint is recorded
 * with `apiKeyEnv: null` when the run is created).
 *
 * @throws `InvalidArgumentError` (exit 2) naming the variable and the system
 */
export function checkResumeKeys(
  manifest: RunManifest,
  context: {
    readonly env?: Readonly<Record<string, string | undefined>>;
    readonly apiKey?: string;
  },
): void {
  for (const system of manifest.systems) {
    const variable = apiKeyEnvOf(system);
    if (system.kind === 'scripted' || variable === null) continue;
    if (apiKeyForSystem(system, context) === undefined)
      throw new InvalidArgumentError(
        variable,
        `${variable} is not set, but system ${system.id} (${system.model}${system.baseUrl === null ? '' : ` at ${system.baseUrl}`}) was created with its key in it: export it before resuming (a resume never sends a request without the key the run started with)`,
      );
  }
}

/**
 * The checks of a resumed folder before anything is sent or the ledger opened: the manifest
 * anchor, the stored requests against the attempt log and (unless the caller brings its own
 * models) every live system's key.
 */
export async function checkResumedFolder(
  paths: RunPaths,
  frozen: FrozenManifest,
  keys: Parameters<typeof checkResumeKeys>[1] | null,
): Promise<void> {
  await checkManifestAnchor(paths, frozen);
  await checkRequestRecords(paths.root);
  if (keys !== null) checkResumeKeys(frozen.manifest, keys);
}

/**
 * Counts a resume in `status.json` as soon as it starts, before its smoke checks: a run killed
 * in its smoke checks (no attempt record yet) is resumed too, and counted.
 */
export async function countResume(paths: RunPaths, now: Date): Promise<void> {
  if (!existsSync(paths.status)) return;
  const status = await readJsonFile(paths.status, RunStatusSchema);
  await writeJsonFile(
    paths.status,
    {
      ...status,
      // The state stays what the last session left: the session itself writes `running` once it
      // starts, so a resume that fails before (a damaged world, a refused smoke check) never
      // leaves a folder that says it is running.
      resumes: status.resumes + 1,
      updatedAt: now.toISOString(),
    },
    { durable: true },
  );
}
