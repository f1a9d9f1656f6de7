import type { BytesStoredRow, WorldSpread } from '@chi/analysis/internal';
import type { AttemptRecord, PlannedRequest } from '@chi/spec';
import type { RunRecords } from '../run-folder/run-folder';

function spreadOf(values: readonly number[]): WorldSpread {
  return {
    mean: values.reduce((sum, value) => sum + value, 0) / values.length,
    min: Math.min(...values),
    max: Math.max(...values),
  };
}

/**
 * The recorded bytes stored of a run, one row per system, experiment, load and condition
 * (systems in manifest order, then experiment, load ascending, condition); empty when no attempt
 * records any (every notebook run: its chart data keeps its bytes). Pure: recomputed by
 * `chi verify` from the attempt log and the plan. The last `after_response` of a request counts.
 */
export function bytesStoredRows(records: RunRecords): BytesStoredRow[] {
  const fold = bytesStoredFold(records);
  for (const attempt of records.attempts) fold.add(attempt);
  return fold.rows();
}

/**
 * {@link bytesStoredRows} record by record, for a pass over the attempts that feeds other folds
 * too (the analysis reads the log in one pass): `add` each record in file order, then `rows`.
 */
export function bytesStoredFold(records: Pick<RunRecords, 'plan' | 'manifest'>): {
  add(attempt: AttemptRecord): void;
  rows(): BytesStoredRow[];
} {
  const byRequest = new Map<string, number>();
  return {
    add(attempt) {
      if (attempt.phase === 'after_response' && attempt.bytesStored !== undefined)
        byRequest.set(attempt.requestId, attempt.bytesStored);
    },
    rows: () => bytesStoredCells(records, byRequest),
  };
}

function bytesStoredCells(
  records: Pick<RunRecords, 'plan' | 'manifest'>,
  byRequest: ReadonlyMap<string, number>,
): BytesStoredRow[] {
  if (byRequest.size === 0) return [];
  const cells = new Map<string, { request: PlannedRequest; values: number[] }>();
  for (const request of records.plan.requests) {
    const bytes = byRequest.get(request.requestId);
    if (bytes === undefined) continue;
    const key = JSON.stringify([
      request.systemId,
      request.experiment,
      request.load,
      request.condition,
    ]);
    const cell = cells.get(key);
    if (cell === undefined) cells.set(key, { request, values: [bytes] });
    else cell.values.push(bytes);
  }
  const order = new Map(records.manifest.systems.map((system, index) => [system.id, index]));
  return [...cells.values()]
    .map(({ request, values }) => ({
      systemId: request.systemId,
      experiment: request.experiment,
      load: request.load,
      condition: request.condition,
      instances: values.length,
      bytesStored: spreadOf(values),
    }))
    .sort(
      (a, b) =>
        (order.get(a.systemId) ?? 0) - (order.get(b.systemId) ?? 0) ||
        a.experiment.localeCompare(b.experiment) ||
        (a.load ?? 0) - (b.load ?? 0) ||
        (a.condition ?? '').localeCompare(b.condition ?? ''),
    );
}
