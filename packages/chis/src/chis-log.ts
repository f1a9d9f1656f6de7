import { ChisEntrySchema } from '@chi/spec';
import type { TornTail } from './jsonl-lines';
import { readJsonl, type StreamJsonlOptions } from './jsonl-reader';
import { type GroupedTrajectories, groupTrajectories } from './trajectories';

/** A CHIS log read and grouped: trajectories, problems found, and the torn tail if any. */
export interface ChisLogContents extends GroupedTrajectories {
  /** Number of valid entries read. */
  readonly entryCount: number;
  readonly tornTail: TornTail | null;
}

/**
 * Reads a CHIS JSONL log (one `ChisEntry` per line, validated) and groups it by trajectory with
 * `groupTrajectories`. Node only.
 *
 * @example
 * ```ts
 * const { trajectories, problems, tornTail } = await readChisTrajectories('run/chis.jsonl');
 * ```
 */
export async function readChisTrajectories(
  path: string,
  options: StreamJsonlOptions = {},
): Promise<ChisLogContents> {
  const { records, tornTail } = await readJsonl(path, ChisEntrySchema, options);
  return { ...groupTrajectories(records), entryCount: records.length, tornTail };
}
