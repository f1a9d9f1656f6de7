import type { RunScores } from '@chi/analysis';
import { isMemoryObservation, observationsOf } from '@chi/analysis';
import type { TranscriptReplayRow, WorldSpread } from '@chi/analysis/internal';
import type { AttemptRecord, PlannedRequest } from '@chi/spec';
import { groupRequestOrdinals, requestsAt } from '../run-folder/plan-view';
import type { RunRecords } from '../run-folder/run-folder';

const encoder = new TextEncoder();

function spread(values: readonly number[]): WorldSpread {
  return {
    mean: values.reduce((sum, value) => sum + value, 0) / values.length,
    min: Math.min(...values),
    max: Math.max(...values),
  };
}

/** The attempt that resolved each request (its last `after_response` record), by request ID. */
function resolvedAttempts(attempts: readonly AttemptRecord[]): Map<string, AttemptRecord> {
  const resolved = new Map<string, AttemptRecord>();
  for (const attempt of attempts)
    if (attempt.phase === 'after_response' && attempt.result !== null)
      resolved.set(attempt.requestId, attempt);
  return resolved;
}

/**
 * UTF-8 bytes of `JSON.stringify([...encodeMessages, { role: 'assistant', content: reply }])`
 * from the encode attempt: its `inputBytes` (the messages array) plus a comma and the reply
 * message, with the closing bracket counted once.
 */
export function transcriptBytes(encodeInputBytes: number, reply: string): number {
  const message = JSON.stringify({ role: 'assistant', content: reply });
  return encodeInputBytes + 1 + encoder.encode(message).length;
}

interface WorldCost {
  readonly notebookStored: number;
  readonly transcriptStored: number;
  readonly notebookInput: number;
  readonly replayInput: number;
  readonly notebookTokens: number | null;
  readonly replayTokens: number | null;
}

function probeCost(
  probes: readonly PlannedRequest[],
  resolved: ReadonlyMap<string, AttemptRecord>,
): { bytes: number; tokens: number | null } {
  let bytes = 0;
  let tokens: number | null = 0;
  for (const probe of probes) {
    const attempt = resolved.get(probe.requestId);
    bytes += attempt?.inputBytes ?? 0;
    const counted = attempt?.result?.usage.promptTokens ?? null;
    tokens = tokens === null || counted === null ? null : tokens + counted;
  }
  return { bytes, tokens };
}

function worldCost(
  records: RunRecords,
  planned: readonly PlannedRequest[],
  resolved: ReadonlyMap<string, AttemptRecord>,
): WorldCost | null {
  const encode = planned.find((r) => r.task === 'memory_encode');
  const encodeAttempt = encode === undefined ? undefined : resolved.get(encode.requestId);
  if (encode === undefined || encodeAttempt === undefined) return null;
  const notebookPath = records.notebookOfRequest.get(encode.requestId);
  const notebook = notebookPath === undefined ? undefined : records.notebooks.get(notebookPath);
  const probes = (condition: 'notebook' | 'replay') =>
    probeCost(
      planned.filter((r) => r.task === 'memory_probe' && (r.condition ?? 'notebook') === condition),
      resolved,
    );
  const notebookProbes = probes('notebook');
  const replayProbes = probes('replay');
  return {
    notebookStored: notebook?.bytes ?? 0,
    transcriptStored: transcriptBytes(encodeAttempt.inputBytes, encodeAttempt.result?.text ?? ''),
    notebookInput: notebookProbes.bytes,
    replayInput: replayProbes.bytes,
    notebookTokens: notebookProbes.tokens,
    replayTokens: replayProbes.tokens,
  };
}

function tokenSpread(values: readonly (number | null)[]): WorldSpread | null {
  return values.some((value) => value === null) ? null : spread(values as number[]);
}

/**
 * The storage and replay costs of the transcript-replay baseline, one row per system and load
 * with a complete replay observation (systems in manifest order, loads ascending); empty when the
 * run has no replay condition. Pure: recomputed by `chi verify` from the attempt log, the plan
 * and the notebooks.
 */
export function transcriptReplayRows(
  records: RunRecords,
  scores: RunScores,
): TranscriptReplayRow[] {
  const replay = observationsOf(scores, 'memory', isMemoryObservation).filter(
    (o) => o.condition === 'replay' && o.blockComplete,
  );
  if (replay.length === 0) return [];
  const resolved = resolvedAttempts(records.attempts);
  const rows: TranscriptReplayRow[] = [];
  // each system's requests of each block, as ordinals: one pass over the plan, not one per world
  const planned = groupRequestOrdinals(records.plan, (r) => `${r.systemId}|${r.blockId}`);
  for (const system of records.manifest.systems) {
    const mine = replay.filter((o) => o.systemId === system.id);
    for (const load of [...new Set(mine.map((o) => o.load))].sort((a, b) => a - b)) {
      const worlds = mine.filter((o) => o.load === load).sort((a, b) => a.worldSeed - b.worldSeed);
      const costs = worlds.flatMap((o) => {
        const requests = requestsAt(records.plan, planned.get(`${system.id}|${o.blockId}`));
        const cost = worldCost(records, requests, resolved);
        return cost === null ? [] : [{ seed: o.worldSeed, cost }];
      });
      if (costs.length === 0) continue;
      const of = (pick: (cost: WorldCost) => number) => spread(costs.map((c) => pick(c.cost)));
      rows.push({
        systemId: system.id,
        load,
        worldSeeds: costs.map((c) => c.seed),
        notebookStoredBytes: of((c) => c.notebookStored),
        transcriptStoredBytes: of((c) => c.transcriptStored),
        notebookProbeInputBytes: of((c) => c.notebookInput),
        replayProbeInputBytes: of((c) => c.replayInput),
        replayProbeInputTokens: tokenSpread(costs.map((c) => c.cost.replayTokens)),
        notebookProbeInputTokens: tokenSpread(costs.map((c) => c.cost.notebookTokens)),
      });
    }
  }
  return rows;
}
