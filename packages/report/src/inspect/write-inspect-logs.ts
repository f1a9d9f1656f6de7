import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { readRunFolder } from '../run-folder/run-folder';
import { INSPECT_LISTING_FILE, inspectListing } from './inspect-listing';
import { inspectLogs } from './inspect-log';

/** What {@link writeInspectLogs} wrote. */
export interface InspectExportSummary {
  readonly outDir: string;
  /** File names of the logs written, sorted. */
  readonly files: readonly string[];
  /** Samples over all logs (one per scored request with a result). */
  readonly samples: number;
}

/**
 * Writes a run folder as Inspect evaluation logs (JSON log format, see {@link inspectLogs}) into
 * `outDir`, so that `inspect view --log-dir <outDir>` opens them, with their `listing.json`
 * ({@link inspectListing}) so that Inspect's viewer served over the folder as static files lists
 * them all. Files of the same name are replaced; other files are left alone.
 *
 * @example
 * ```ts
 * await writeInspectLogs({ runDir: 'chi-runs/<runId>', outDir: 'inspect-logs' });
 * ```
 */
export async function writeInspectLogs(options: {
  readonly runDir: string;
  readonly outDir: string;
}): Promise<InspectExportSummary> {
  const outDir = resolve(options.outDir);
  const logs = inspectLogs(await readRunFolder(resolve(options.runDir)));
  await mkdir(outDir, { recursive: true });
  let samples = 0;
  for (const [name, log] of logs) {
    samples += Array.isArray(log.samples) ? log.samples.length : 0;
    await writeFile(join(outDir, name), `${JSON.stringify(log, null, 2)}\n`);
  }
  await writeFile(
    join(outDir, INSPECT_LISTING_FILE),
    `${JSON.stringify(inspectListing(logs), null, 2)}\n`,
  );
  return { outDir, files: [...logs.keys()], samples };
}
