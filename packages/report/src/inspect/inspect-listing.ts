import type { InspectEvalLog } from './json';

/** The file name of Inspect's log listing, beside the logs. */
export const INSPECT_LISTING_FILE = 'listing.json';

interface ListedHeader {
  readonly eval_id: string;
  readonly run_id: string;
  readonly task: string;
  readonly task_id: string;
  readonly task_version: number | string;
  readonly model: string;
}

/**
 * The listing entry of one log as Inspect's `write_log_listing` writes it (its `LogOverview`:
 * the header's IDs, model, status, times and the headline metric, absent fields left out).
 */
function overview(log: InspectEvalLog): Record<string, unknown> {
  const header = log.eval as unknown as ListedHeader;
  const stats = log.stats as { started_at?: string; completed_at?: string } | undefined;
  const scores = (log.results as { scores?: { metrics?: Record<string, unknown> }[] } | null)
    ?.scores;
  const primary = Object.values(scores?.[0]?.metrics ?? {})[0];
  return {
    eval_id: header.eval_id,
    run_id: header.run_id,
    task: header.task,
    task_id: header.task_id,
    task_version: header.task_version,
    version: log.version,
    status: log.status,
    model: header.model,
    started_at: stats?.started_at ?? '',
    completed_at: stats?.completed_at ?? '',
    ...(primary === undefined ? {} : { primary_metric: primary }),
  };
}

/**
 * Inspect's `listing.json` of a folder of logs: each log's file name (relative to the folder)
 * to its overview, in the logs' order. Inspect's viewer reads it to list a folder of logs served
 * as static files (what `inspect view bundle` writes); `inspect view --log-dir` ignores it (a
 * `.json` file is a log only when its name starts with a timestamp).
 */
export function inspectListing(
  logs: ReadonlyMap<string, InspectEvalLog>,
): Record<string, Record<string, unknown>> {
  const listing: Record<string, Record<string, unknown>> = {};
  for (const [name, log] of logs) listing[name] = overview(log);
  return listing;
}
