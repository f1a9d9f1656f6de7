import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RUN_FILE_NAME } from '@chi/run/internal';

/**
 * The `protocol` the manifest of the run folder or release `dir` names, unchecked: what picks a
 * protocol's release kind (`releaseKindOf`) and view kind (`viewKindOf`). Undefined when the
 * manifest is missing, not JSON or names none; the default pilot's reader then reports what is
 * wrong with it, with its file and field.
 */
export async function manifestProtocolOf(dir: string): Promise<unknown> {
  try {
    const text = await readFile(join(dir, RUN_FILE_NAME.manifest), 'utf8');
    return (JSON.parse(text) as { protocol?: unknown }).protocol;
  } catch {
    return undefined;
  }
}
