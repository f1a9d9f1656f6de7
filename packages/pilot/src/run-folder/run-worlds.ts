import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { memoryWorldKey } from '@chi/experiments/internal';
import { sha256Hex } from '@chi/run';
import {
  type BehavioralItemSet,
  BehavioralItemSetSchema,
  type HistoryWorld,
  HistoryWorldSchema,
  type MemoryWorld,
  MemoryWorldSchema,
  RunFolderDamagedError,
  type RunManifest,
} from '@chi/spec';
import {
  deriveSeed,
  generateBehavioralItems,
  generateHistoryWorld,
  generateMemoryWorld,
} from '@chi/worlds';
import { type RunPaths, readGzipJsonFile, writeGzipJsonFile } from './run-folder';

/** Every generated world of a run, keyed for lookup. */
export interface RunWorlds {
  /** Memory worlds by `<seed>|<load>`. */
  readonly memory: ReadonlyMap<string, MemoryWorld>;
  readonly history: ReadonlyMap<number, HistoryWorld>;
  readonly behavior: ReadonlyMap<number, BehavioralItemSet>;
}

// Key of a memory world in {@link RunWorlds.memory}: the built-in folders' (`@chi/experiments`),
// which render from these worlds.
export { memoryWorldKey } from '@chi/experiments/internal';

/** Mutable maps of {@link RunWorlds}: what `readSeedWorlds` reads and {@link generateSeedWorlds} generates into. */
export interface RunWorldMaps {
  readonly memory: Map<string, MemoryWorld>;
  readonly history: Map<number, HistoryWorld>;
  readonly behavior: Map<number, BehavioralItemSet>;
}

/** Empty {@link RunWorldMaps}, to generate or read worlds into. */
export function emptyWorldMaps(): RunWorldMaps {
  return { memory: new Map(), history: new Map(), behavior: new Map() };
}

/** World seed k of a run: `deriveSeed(rootSeed, 'world', k)` (the `@chi/worlds` derivation). */
export function worldSeedsFor(rootSeed: number, replicates: number): number[] {
  return Array.from({ length: replicates }, (_, index) => deriveSeed(rootSeed, 'world', index));
}

/** Every memory load a run needs a world for: the grid plus the controls' load. */
export function memoryLoadsOf(manifest: RunManifest): number[] {
  const memory = manifest.experiments.memory;
  if (memory === null) return [];
  const loads = new Set(memory.loads);
  if (memory.controlsAtLoad !== null) loads.add(memory.controlsAtLoad);
  return [...loads].sort((a, b) => a - b);
}

/**
 * Generates the worlds of one world seed into `into` (pure and deterministic): its memory world at
 * every load the run needs, its history world and its behavioral items, as the manifest registers
 * them.
 */
export function generateSeedWorlds(manifest: RunManifest, seed: number, into: RunWorldMaps): void {
  const probesPerStratum = manifest.experiments.memory?.probesPerStratum;
  for (const load of memoryLoadsOf(manifest)) {
    into.memory.set(
      memoryWorldKey(seed, load),
      generateMemoryWorld(
        probesPerStratum === undefined ? { seed, load } : { seed, load, probesPerStratum },
      ),
    );
  }
  if (manifest.experiments.history !== null) into.history.set(seed, generateHistoryWorld({ seed }));
  if (manifest.experiments.behavior !== null)
    into.behavior.set(seed, generateBehavioralItems({ seed }));
}

/**
 * Generates every world the manifest registers (pure and deterministic), all held at once: for
 * small runs and tests. A run folder is written seed by seed instead ({@link writeGeneratedWorlds}).
 */
export function generateRunWorlds(manifest: RunManifest): RunWorlds {
  const worlds = emptyWorldMaps();
  for (const seed of manifest.worldSeeds) generateSeedWorlds(manifest, seed, worlds);
  return worlds;
}

/**
 * SHA-256 of the bytes this process wrote to each world file, by absolute path: a run this
 * process has just created is checked ({@link checkWorldFiles}) by comparing its files' bytes
 * with what was written, instead of decoding and validating its own output again.
 */
const writtenWorlds = new Map<string, string>();

/** Writes one world file and notes the digest of its bytes. */
async function writeWorldFile(path: string, value: unknown): Promise<void> {
  const bytes = await writeGzipJsonFile(path, value);
  writtenWorlds.set(resolve(path), sha256Hex(bytes));
}

/** Whether the file holds exactly the bytes this process wrote there (false if it wrote none). */
async function holdsWrittenWorld(path: string): Promise<boolean> {
  const written = writtenWorlds.get(resolve(path));
  if (written === undefined) return false;
  try {
    return sha256Hex(await readFile(path)) === written;
  } catch {
    return false;
  }
}

/** Writes every world into `worlds/` of the run folder. */
export async function writeRunWorlds(paths: RunPaths, worlds: RunWorlds): Promise<void> {
  const writes: Promise<void>[] = [];
  for (const world of worlds.memory.values())
    writes.push(writeWorldFile(paths.memoryWorld(world.seed, world.load), world));
  for (const world of worlds.history.values())
    writes.push(writeWorldFile(paths.historyWorld(world.seed), world));
  for (const set of worlds.behavior.values())
    writes.push(writeWorldFile(paths.behaviorWorld(set.seed), set));
  await Promise.all(writes);
}

/**
 * Generates and writes every world the manifest registers into `worlds/`, one world seed at a
 * time: a seed's worlds are generated, written and dropped before the next seed's are generated,
 * so memory grows with the largest world seed, not with the run. The files are the ones
 * {@link writeRunWorlds} writes from {@link generateRunWorlds}, byte for byte.
 */
export async function writeGeneratedWorlds(paths: RunPaths, manifest: RunManifest): Promise<void> {
  for (const seed of manifest.worldSeeds) {
    const worlds = emptyWorldMaps();
    generateSeedWorlds(manifest, seed, worlds);
    await writeRunWorlds(paths, worlds);
  }
}

/**
 * The history worlds of a run only (what the CHIS entries need), without reading its memory
 * worlds, which are the largest files of a run.
 */
export async function readHistoryWorlds(
  paths: RunPaths,
  manifest: RunManifest,
): Promise<Map<number, HistoryWorld>> {
  const history = new Map<number, HistoryWorld>();
  if (manifest.experiments.history === null) return history;
  for (const seed of manifest.worldSeeds)
    history.set(seed, await readGzipJsonFile(paths.historyWorld(seed), HistoryWorldSchema));
  return history;
}

/**
 * Reads the worlds of one world seed from a run folder (validated) into `into`: its memory world
 * at every load the run needs, its history world and its behavioral items, as the manifest
 * registers them. What a request of that seed renders with, without reading the other worlds.
 */
export async function readSeedWorlds(
  paths: RunPaths,
  manifest: RunManifest,
  seed: number,
  into: RunWorldMaps,
): Promise<void> {
  for (const load of memoryLoadsOf(manifest))
    into.memory.set(
      memoryWorldKey(seed, load),
      await readGzipJsonFile(paths.memoryWorld(seed, load), MemoryWorldSchema),
    );
  if (manifest.experiments.history !== null)
    into.history.set(seed, await readGzipJsonFile(paths.historyWorld(seed), HistoryWorldSchema));
  if (manifest.experiments.behavior !== null)
    into.behavior.set(
      seed,
      await readGzipJsonFile(paths.behaviorWorld(seed), BehavioralItemSetSchema),
    );
}

/** The world files of one world seed that {@link readSeedWorlds} reads. */
function seedWorldFiles(paths: RunPaths, manifest: RunManifest, seed: number): string[] {
  return [
    ...memoryLoadsOf(manifest).map((load) => paths.memoryWorld(seed, load)),
    ...(manifest.experiments.history === null ? [] : [paths.historyWorld(seed)]),
    ...(manifest.experiments.behavior === null ? [] : [paths.behaviorWorld(seed)]),
  ];
}

/**
 * Reads and validates every world file of the run, one world seed at a time (each seed's worlds
 * are dropped before the next seed's are read), before any request is sent: a missing, truncated
 * or edited world is named now, not after requests were sent (they are read again seed by seed
 * when a request renders). A seed whose files hold byte for byte what this process generated and
 * wrote there is checked by comparing digests (the generator's worlds validate by construction,
 * `@chi/worlds`'s tests hold them to the schemas); any other is read, decoded and validated.
 *
 * @throws `RunFolderDamagedError` (`@chi/spec`) naming the first world file that is missing or
 * does not decode and validate
 */
export async function checkWorldFiles(paths: RunPaths, manifest: RunManifest): Promise<void> {
  for (const seed of manifest.worldSeeds)
    for (const path of seedWorldFiles(paths, manifest, seed)) {
      // A folder of an older layout keeps the world as plain `.json` beside no `.json.gz`.
      const legacy = path.replace(/\.gz$/, '');
      const problem = worldFileProblem(path);
      if (problem !== null && (legacy === path || !existsSync(legacy)))
        throw new RunFolderDamagedError(path, problem);
    }
  for (const seed of manifest.worldSeeds) {
    // Files that still hold the bytes this process generated and wrote (a run created by this
    // process) decode and validate as the generator's output does: compared, not read again.
    const files = seedWorldFiles(paths, manifest, seed);
    if ((await Promise.all(files.map(holdsWrittenWorld))).every(Boolean)) continue;
    try {
      await readSeedWorlds(paths, manifest, seed, emptyWorldMaps());
    } catch (error) {
      if (RunFolderDamagedError.isInstance(error)) throw error;
      // A read or decode error names no file of its own: the seed's files are the suspects.
      throw new RunFolderDamagedError(
        seedWorldFiles(paths, manifest, seed).join(', '),
        `a world file of seed ${seed} cannot be read: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }
}

/** Why a world file cannot be read (missing, or there but unreadable), or null. */
function worldFileProblem(path: string): string | null {
  try {
    if (!statSync(path).isFile()) return 'the world file is unreadable: it is not a file';
    accessSync(path, constants.R_OK);
    return null;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT'
      ? 'the world file is missing'
      : `the world file is unreadable (${(error as Error).message})`;
  }
}

/** Forgets the worlds of one world seed that {@link readSeedWorlds} read into `from`. */
export function dropSeedWorlds(manifest: RunManifest, seed: number, from: RunWorldMaps): void {
  for (const load of memoryLoadsOf(manifest)) from.memory.delete(memoryWorldKey(seed, load));
  from.history.delete(seed);
  from.behavior.delete(seed);
}

/** Reads every world of a run folder back (validated). */
export async function readRunWorlds(paths: RunPaths, manifest: RunManifest): Promise<RunWorlds> {
  const worlds = emptyWorldMaps();
  for (const seed of manifest.worldSeeds) await readSeedWorlds(paths, manifest, seed, worlds);
  return worlds;
}
