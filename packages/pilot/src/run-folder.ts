import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { InvalidArgumentError, parseWith, RunFolderDamagedError, ValidationError } from '@chi/spec';
import type { z } from 'zod';

/** Every path of a run folder (see RUN-FOLDER.md). */
export interface RunPaths {
  readonly root: string;
  readonly manifest: string;
  readonly manifestSha256: string;
  readonly promptsDir: string;
  readonly plan: string;
  readonly attempts: string;
  readonly ledger: string;
  readonly failures: string;
  readonly smoke: string;
  /** The smoke checks' own file ledger (their ceiling across sessions; never re-pays a check). */
  readonly smokeLedger: string;
  readonly status: string;
  readonly blocks: string;
  readonly analysis: string;
  readonly scoresDir: string;
  readonly chisDir: string;
  readonly releaseDir: string;
  memoryWorld(seed: number, load: number): string;
  historyWorld(seed: number): string;
  behaviorWorld(seed: number): string;
  request(requestId: string): string;
  memoryNotebook(systemId: string, seed: number, load: number): string;
  historyNotebook(systemId: string, seed: number, history: string, checkpoint: number): string;
  chis(systemId: string): string;
}

/** The paths of the run folder rooted at `root`. */
export function runPaths(root: string): RunPaths {
  return {
    root,
    manifest: join(root, 'manifest.json'),
    manifestSha256: join(root, 'manifest.sha256'),
    promptsDir: join(root, 'prompts'),
    plan: join(root, 'plan.json'),
    attempts: join(root, 'attempts.jsonl'),
    ledger: join(root, 'ledger.jsonl'),
    failures: join(root, 'failures.jsonl'),
    smoke: join(root, 'smoke.jsonl'),
    smokeLedger: join(root, 'smoke-ledger.jsonl'),
    status: join(root, 'status.json'),
    blocks: join(root, 'blocks.json'),
    analysis: join(root, 'analysis.json'),
    scoresDir: join(root, 'scores'),
    chisDir: join(root, 'chis'),
    releaseDir: join(root, 'release'),
    memoryWorld: (seed, load) => join(root, 'worlds', 'memory', `w${seed}-n${load}.json`),
    historyWorld: (seed) => join(root, 'worlds', 'history', `w${seed}.json`),
    behaviorWorld: (seed) => join(root, 'worlds', 'behavior', `w${seed}.json`),
    request: (requestId) => join(root, 'requests', `${requestId}.json`),
    memoryNotebook: (systemId, seed, load) =>
      join(root, 'notebooks', systemId, 'memory', `w${seed}-n${load}.json`),
    historyNotebook: (systemId, seed, history, checkpoint) =>
      join(root, 'notebooks', systemId, 'history', `w${seed}-${history}-c${checkpoint}.json`),
    chis: (systemId) => join(root, 'chis', `${systemId}.jsonl`),
  };
}

/** Two-space indented JSON with a final newline: the form of every `*.json` file but the manifest. */
export function prettyJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/**
 * Writes a file atomically: a temporary sibling, then a rename, so a reader never sees half a
 * file. With `durable`, the data is fsync'd before the rename.
 */
export async function writeFileAtomic(
  path: string,
  text: string,
  options: { durable?: boolean } = {},
): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  if (options.durable === true) {
    const handle = await open(temporary, 'w');
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
  } else {
    await writeFile(temporary, text, 'utf8');
  }
  await rename(temporary, path);
}

/** Writes `value` as pretty JSON, atomically. */
export async function writeJsonFile(
  path: string,
  value: unknown,
  options: { durable?: boolean } = {},
): Promise<void> {
  await writeFileAtomic(path, prettyJson(value), options);
}

/**
 * Reads and validates a JSON file of a run folder.
 *
 * @throws `RunFolderDamagedError` (`@chi/spec`) naming the file when it is not JSON or not valid
 */
export async function readJsonFile<S extends z.ZodType>(
  path: string,
  schema: S,
): Promise<z.output<S>> {
  const text = await readFile(path, 'utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new RunFolderDamagedError(path, `not JSON (${(error as Error).message})`, {
      cause: error,
    });
  }
  try {
    return parseWith(schema, value, path);
  } catch (error) {
    if (!ValidationError.isInstance(error)) throw error;
    throw new RunFolderDamagedError(path, error.message.replace(/\n\s*/g, ' '), { cause: error });
  }
}

/**
 * Opens an append-only log of the run folder; a log corrupt before its last line is a damaged
 * run folder (named), not a usage error.
 */
export async function openRunLog<T>(path: string, open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (error) {
    if (!ValidationError.isInstance(error) && !InvalidArgumentError.isInstance(error)) throw error;
    throw new RunFolderDamagedError(path, error.message.replace(/\n\s*/g, ' '), { cause: error });
  }
}
