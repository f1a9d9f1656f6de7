import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { canonicalJson, parseRunJsonl } from '@chi/run';
import { InvalidArgumentError, RunFolderDamagedError } from '@chi/spec';
import { deriveSeed } from '@chi/worlds';
import { loadPromptTemplates, type PromptSet } from '../prompts';
import { analyzeDivergence, type DivergenceAnalysis } from './analyze';
import {
  type DivergenceCallRecord,
  DivergenceCallRecordSchema,
  executeDivergence,
  type InstanceModelFactory,
} from './execute';
import {
  buildDivergenceManifest,
  type DivergenceManifest,
  divergenceManifestSha256,
} from './manifest';
import { DIVERGENCE_PROTOCOL_ID } from './protocol';
import { divergenceEntries } from './score';
import {
  createDivergenceInstanceModel,
  DIVERGENCE_SYSTEM_NAMES,
  divergenceSystemSpec,
  instanceSeed,
} from './scripted-divergence';

/** Root seed of the divergence protocol's world seeds (the pilot's). */
export const DIVERGENCE_ROOT_SEED = 20260901;
/** Analysis seed (the pilot's). */
export const DIVERGENCE_ANALYSIS_SEED = 20260902;
/** Seed of the scripted systems' declared noise. */
export const DIVERGENCE_SCRIPTED_SEED = 20260901;

/** Files of a divergence run folder. */
export function divergencePaths(runDir: string) {
  return {
    manifest: join(runDir, 'manifest.json'),
    calls: join(runDir, 'calls.jsonl'),
    chis: join(runDir, 'chis.jsonl'),
    release: join(runDir, 'release'),
  };
}

/** Options of {@link runDivergenceProtocol}. */
export interface RunDivergenceOptions {
  readonly runDir: string;
  /** Number of worlds (default 8). */
  readonly worlds?: number;
  /** Bootstrap resamples (default 2000). */
  readonly resamples?: number;
  /** Fixed manifest timestamp; default now. */
  readonly createdAt?: string;
  readonly prompts?: PromptSet;
  /** The models of every instance; default the scripted divergence systems. */
  readonly modelFor?: InstanceModelFactory;
}

/** The offline default: the three scripted divergence systems over `worlds` seeded worlds. */
export function defaultDivergenceManifest(
  worlds: number,
  createdAt: string,
  prompts: PromptSet,
  resamples?: number,
): DivergenceManifest {
  if (!Number.isInteger(worlds) || worlds < 1)
    throw new InvalidArgumentError(
      'worlds',
      `expected a positive integer, found ${String(worlds)}`,
    );
  return buildDivergenceManifest({
    worldSeeds: Array.from({ length: worlds }, (_, k) =>
      deriveSeed(DIVERGENCE_ROOT_SEED, 'world', k),
    ),
    systems: DIVERGENCE_SYSTEM_NAMES.map((name) =>
      divergenceSystemSpec(name, DIVERGENCE_SCRIPTED_SEED),
    ),
    prompts,
    createdAt,
    analysisSeed: DIVERGENCE_ANALYSIS_SEED,
    ...(resamples === undefined ? {} : { resamples }),
  });
}

/** Scripted instances: a fresh model object per instance, seeded per instance. */
export function scriptedDivergenceModels(manifest: DivergenceManifest): InstanceModelFactory {
  const seeds = new Map(manifest.systems.map((system) => [system.id, system.scripted?.seed ?? 0]));
  return (systemId, worldSeed, armId) =>
    createDivergenceInstanceModel(
      systemId,
      instanceSeed(seeds.get(systemId) ?? 0, worldSeed, armId),
    );
}

/**
 * Runs the divergence protocol offline end to end: freezes the manifest (checkpoints and primary
 * checkpoint included) before the first request, executes every arm, appends every call to
 * `calls.jsonl`, writes the CHIS entries and returns the analysis (the caller writes the release).
 */
export async function runDivergenceProtocol(
  options: RunDivergenceOptions,
): Promise<{ manifest: DivergenceManifest; manifestSha256: string; analysis: DivergenceAnalysis }> {
  const prompts = options.prompts ?? loadPromptTemplates();
  const manifest = defaultDivergenceManifest(
    options.worlds ?? 8,
    options.createdAt ?? new Date().toISOString(),
    prompts,
    options.resamples,
  );
  const paths = divergencePaths(options.runDir);
  await mkdir(options.runDir, { recursive: true });
  const manifestSha256 = divergenceManifestSha256(manifest);
  // Frozen before any request: the preregistration of the checkpoints and the primary one.
  await writeFile(paths.manifest, `${canonicalJson(manifest)}\n`, { flag: 'wx' });
  await writeFile(paths.calls, '', { flag: 'wx' });
  const calls: DivergenceCallRecord[] = [];
  await executeDivergence({
    manifest,
    manifestSha256,
    prompts,
    modelFor: options.modelFor ?? scriptedDivergenceModels(manifest),
    record: async (call) => {
      calls.push(call);
      await appendFile(paths.calls, `${JSON.stringify(call)}\n`);
    },
  });
  const entries = divergenceEntries(manifest, calls);
  await writeFile(paths.chis, entries.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
  return {
    manifest,
    manifestSha256,
    analysis: analyzeDivergence(manifest, manifestSha256, entries),
  };
}

/**
 * Reads a divergence run folder (manifest and call log) and recomputes its analysis from the raw
 * replies: what `chi verify` does. Throws `RunFolderDamagedError` when a call was made under
 * another manifest.
 */
export async function recomputeDivergence(runDir: string): Promise<{
  manifest: DivergenceManifest;
  manifestSha256: string;
  analysis: DivergenceAnalysis;
}> {
  const paths = divergencePaths(runDir);
  const manifest = readJsonOrDamaged<DivergenceManifest>(
    await readOrDamaged(paths.manifest),
    paths.manifest,
  );
  if (manifest.kind !== 'divergence-manifest' || manifest.protocol !== DIVERGENCE_PROTOCOL_ID)
    throw new RunFolderDamagedError(
      paths.manifest,
      `expected a ${DIVERGENCE_PROTOCOL_ID} divergence manifest, found kind ${JSON.stringify(manifest.kind)} protocol ${JSON.stringify(manifest.protocol)}`,
    );
  const manifestSha256 = divergenceManifestSha256(manifest);
  const calls = readCallLog(await readOrDamaged(paths.calls), paths.calls, manifestSha256);
  if (calls.length !== manifest.totalRequests)
    throw new RunFolderDamagedError(
      paths.calls,
      `it holds ${calls.length} calls, but the manifest registers ${manifest.totalRequests}`,
    );
  const entries = divergenceEntries(manifest, calls);
  return {
    manifest,
    manifestSha256,
    analysis: analyzeDivergence(manifest, manifestSha256, entries),
  };
}

/**
 * Parses `calls.jsonl` with the run folder's one JSONL rule (`parseRunJsonl` of `@chi/run`):
 * every line validated against {@link DivergenceCallRecordSchema}, a bad line a damaged folder
 * naming the file and line. The protocol is not resumable, so a torn final line (a write the run
 * never finished) is damage too, and so is a call made under another manifest.
 */
export function readCallLog(
  text: string,
  path: string,
  manifestSha256: string,
): DivergenceCallRecord[] {
  let parsed: ReturnType<typeof parseRunJsonl<typeof DivergenceCallRecordSchema>>;
  try {
    parsed = parseRunJsonl(text, DivergenceCallRecordSchema, path);
  } catch (error) {
    throw new RunFolderDamagedError(path, (error as Error).message, { cause: error });
  }
  const { records, tornTail } = parsed;
  if (tornTail !== null)
    throw new RunFolderDamagedError(
      path,
      `line ${records.length + 1} is torn (an unfinished write at byte offset ${tornTail.byteOffset}): it holds ${records.length} complete calls`,
    );
  records.forEach((call, index) => {
    if (call.manifestSha256 !== manifestSha256)
      throw new RunFolderDamagedError(
        path,
        `line ${index + 1} carries manifest hash ${call.manifestSha256}, but manifest.json hashes to ${manifestSha256}`,
      );
  });
  return records;
}

async function readOrDamaged(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new RunFolderDamagedError(path, 'missing or unreadable', { cause: error });
  }
}

/** Parses one JSON object of the folder (a shallow check: the records are not schema-validated). */
function readJsonOrDamaged<T>(text: string, where: string): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new RunFolderDamagedError(where, `not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new RunFolderDamagedError(where, 'expected a JSON object');
  return value as T;
}
