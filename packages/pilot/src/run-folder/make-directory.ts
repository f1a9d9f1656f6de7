import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { InvalidArgumentError } from '@chi/spec';

/**
 * Creates `dir` and its missing parents one level at a time, failing at once with the path and
 * the reason. (A recursive `mkdir` under a pseudo-filesystem such as `/proc` can spin forever on
 * ENOENT instead of failing.)
 *
 * @throws {@link InvalidArgumentError} for `field` when a part of the path is not a directory or
 * cannot be created
 */
export async function makeDirectory(dir: string, field = 'out'): Promise<void> {
  const target = resolve(dir);
  const missing: string[] = [];
  for (let current = target; ; current = dirname(current)) {
    try {
      const info = await stat(current);
      if (!info.isDirectory())
        throw new InvalidArgumentError(
          field,
          `cannot create ${target}: ${current} exists and is not a directory`,
        );
      break;
    } catch (error) {
      if (InvalidArgumentError.isInstance(error)) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      // ENOTDIR: a part of the path is a file; the loop reaches it and says so.
      if (code !== 'ENOENT' && code !== 'ENOTDIR')
        throw new InvalidArgumentError(
          field,
          `cannot create ${target}: ${code ?? String(error)} at ${current}`,
        );
      missing.unshift(current);
      if (dirname(current) === current) break;
    }
  }
  for (const path of missing) {
    try {
      await mkdir(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') continue;
      throw new InvalidArgumentError(
        field,
        `cannot create ${target}: creating ${path} failed with ${code ?? String(error)}${code === 'ENOENT' ? ' (the parent folder does not accept new folders, e.g. /proc)' : ''}`,
      );
    }
  }
}
