import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, open, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { canonicalJson, type RunPaths } from '@chi/run';
import { decodeGzipJson, gzipTextAsync, runFolderPaths } from '@chi/run/internal';
import { InvalidArgumentError, parseWith, RunFolderDamagedError, ValidationError } from '@chi/spec';
import type { z } from 'zod';

/** Every path of a run folder (see RUN-FOLDER.md): `@chi/run`'s layout, the one place paths are built. */
export type { RunPaths } from '@chi/run';

/** The paths of the run folder rooted at `root` (`runFolderPaths` of `@chi/run`). */
export const runPaths: (root: string) => RunPaths = runFolderPaths;

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

/** Writes `value` as a `*.json.gz` run file (gzip of its canonical JSON), atomically; returns the bytes written. */
export async function writeGzipJsonFile(path: string, value: unknown): Promise<Uint8Array> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  // `encodeGzipJson`'s bytes, compressed on libuv's thread pool (the files of a world seed are
  // written side by side, so the compression of one overlaps the serialization of the next).
  const bytes = await gzipTextAsync(canonicalJson(value));
  await writeFile(temporary, bytes);
  await rename(temporary, path);
  return bytes;
}

/**
 * Reads and validates a `*.json.gz` run file; when it is absent and its `.json` sibling exists
 * (a layout-0.1 folder), reads that instead.
 *
 * @throws `RunFolderDamagedError` (`@chi/spec`) naming the file when it is not gzip JSON or not valid
 */
export async function readGzipJsonFile<S extends z.ZodType>(
  path: string,
  schema: S,
): Promise<z.output<S>> {
  const legacy = path.replace(/\.gz$/, '');
  if (!existsSync(path) && existsSync(legacy)) return readJsonFile(legacy, schema);
  const value = decodeGzipJson(await readFile(path), path);
  try {
    return parseWith(schema, value, path);
  } catch (error) {
    if (!ValidationError.isInstance(error)) throw error;
    throw new RunFolderDamagedError(path, error.message.replace(/\n\s*/g, ' '), { cause: error });
  }
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
 * The text of a run file every session needs; missing or unreadable is a damaged run folder
 * (exit 5) naming the file, not a raw system error.
 *
 * @throws `RunFolderDamagedError` naming the file
 */
export async function readRunFileText(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new RunFolderDamagedError(
      path,
      code === 'ENOENT'
        ? 'it is missing: every session needs it (restore it from a copy or the release)'
        : `it is unreadable (${(error as Error).message})`,
      { cause: error },
    );
  }
}

/**
 * Reads and validates a JSON file of a run folder.
 *
 * @throws `RunFolderDamagedError` (`@chi/spec`) naming the file when it is missing, unreadable,
 * not JSON or not valid
 */
export async function readJsonFile<S extends z.ZodType>(
  path: string,
  schema: S,
): Promise<z.output<S>> {
  return parseJsonFileText(path, await readRunFileText(path), schema);
}

/**
 * Parses and validates the text of a JSON file of a run folder (read by the caller).
 *
 * @throws `RunFolderDamagedError` (`@chi/spec`) naming the file when it is not JSON or not valid
 */
export function parseJsonFileText<S extends z.ZodType>(
  path: string,
  text: string,
  schema: S,
): z.output<S> {
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
