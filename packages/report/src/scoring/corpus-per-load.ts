import type { CorpusRow } from '@chi/analysis/internal';
import type { AttemptRecord } from '@chi/spec';
import { plannedRequestOf } from '../run-folder/plan-view';
import type { RunRecords } from '../run-folder/run-folder';

type CorpusEntry = { load: number; bytes: number; tokens: number | null };

/**
 * The corpus rows of a run, by load: bytes from every `before_send` attempt of a
 * `memory_encode` request (the latest attempt of each request counts once), tokens from the
 * `after_response` usage of the same requests.
 */
export function corpusPerLoad(records: Pick<RunRecords, 'attempts' | 'plan'>): CorpusRow[] {
  const fold = corpusPerLoadFold(records.plan);
  for (const attempt of records.attempts) fold.add(attempt);
  return fold.rows();
}

/**
 * {@link corpusPerLoad} record by record, for a pass over the attempts that feeds other folds
 * too (the analysis reads the log's facts in one pass): `add` each record in file order, then
 * `rows`.
 */
export function corpusPerLoadFold(plan: RunRecords['plan']): {
  add(attempt: AttemptRecord): void;
  rows(): CorpusRow[];
} {
  const plannedRequest = plannedRequestOf(plan);
  const bytes = new Map<string, CorpusEntry>();
  return {
    add(attempt) {
      const request = plannedRequest(attempt.requestId);
      if (request?.task !== 'memory_encode' || request.load === null) return;
      const seen = bytes.get(attempt.requestId);
      const tokens =
        attempt.phase === 'after_response' ? (attempt.result?.usage.promptTokens ?? null) : null;
      bytes.set(attempt.requestId, {
        load: request.load,
        bytes: attempt.inputBytes,
        tokens: tokens ?? seen?.tokens ?? null,
      });
    },
    rows: () => corpusRows(bytes),
  };
}

function corpusRows(bytes: ReadonlyMap<string, CorpusEntry>): CorpusRow[] {
  const byLoad = new Map<number, { bytes: number[]; tokens: number[] }>();
  for (const { load, bytes: size, tokens } of bytes.values()) {
    const entry = byLoad.get(load) ?? { bytes: [], tokens: [] };
    entry.bytes.push(size);
    if (tokens !== null) entry.tokens.push(tokens);
    byLoad.set(load, entry);
  }
  const mean = (values: readonly number[]) =>
    values.reduce((sum, value) => sum + value, 0) / values.length;
  return [...byLoad]
    .sort(([a], [b]) => a - b)
    .map(([load, entry]) => ({
      load,
      requests: entry.bytes.length,
      bytesMin: Math.min(...entry.bytes),
      bytesMean: mean(entry.bytes),
      bytesMax: Math.max(...entry.bytes),
      reportedPromptTokensMean: entry.tokens.length === 0 ? null : mean(entry.tokens),
      requestsWithTokens: entry.tokens.length,
    }));
}
