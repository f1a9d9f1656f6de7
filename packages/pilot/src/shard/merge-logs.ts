import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createJsonlWriter } from '@chi/run';
import { attemptRecordSha256, readRunJsonl } from '@chi/run/internal';
import { type AttemptRecord, AttemptRecordSchema, type RunPlan } from '@chi/spec';

/** Each request's position in the whole plan. */
export function planOrdinals(plan: RunPlan): Map<string, number> {
  return new Map(plan.requests.map((request, ordinal) => [request.requestId, ordinal]));
}

/** The lines of a JSONL file without a torn last line (none when the file is absent). */
async function completeLines(path: string): Promise<string[]> {
  if (!existsSync(path)) return [];
  const lines = (await readFile(path, 'utf8')).split('\n');
  return lines.slice(0, -1).filter((line) => line.trim() !== '');
}

/**
 * Concatenates the lines of one JSONL file of every shard (in shard order), or sorts them by the
 * plan position of their `requestId` when `ordinals` is given (stable: a request's lines keep
 * their order). Writes nothing when no shard has the file.
 */
export async function mergeJsonlFiles(
  sources: readonly string[],
  target: string,
  ordinals?: ReadonlyMap<string, number>,
): Promise<void> {
  if (!sources.some((source) => existsSync(source))) return;
  let lines: string[] = [];
  for (const source of sources) lines.push(...(await completeLines(source)));
  if (ordinals !== undefined) {
    const at = (line: string) =>
      ordinals.get((JSON.parse(line) as { requestId?: string }).requestId ?? '') ?? -1;
    lines = lines
      .map((line, index) => ({ line, index, ordinal: at(line) }))
      .sort((a, b) => a.ordinal - b.ordinal || a.index - b.index)
      .map((entry) => entry.line);
  }
  await writeFile(target, lines.map((line) => `${line}\n`).join(''), 'utf8');
}

/**
 * The shards' attempt records as one log of the unsharded run: every record in plan order of its
 * request (a request's records keep their order; the shards' own order is by time, which
 * differs from machine to machine), carrying the unsharded manifest's hash and linked into one
 * chain (`previousSha256`), as the runner links a log it writes. Returns the chain's head.
 */
export async function mergeAttemptLogs(
  sources: readonly string[],
  target: string,
  ordinals: ReadonlyMap<string, number>,
  manifestSha256: string,
): Promise<{ records: number; headSha256: string | null; merged: AttemptRecord[] }> {
  const all: { record: AttemptRecord; index: number }[] = [];
  for (const source of sources)
    for (const record of (await readRunJsonl(source, AttemptRecordSchema)).records)
      all.push({ record, index: all.length });
  all.sort(
    (a, b) =>
      (ordinals.get(a.record.requestId) ?? -1) - (ordinals.get(b.record.requestId) ?? -1) ||
      a.index - b.index,
  );
  const writer = await createJsonlWriter({
    path: target,
    schema: AttemptRecordSchema,
    fsync: 'on-flush',
  });
  let headSha256: string | null = null;
  const merged: AttemptRecord[] = [];
  try {
    for (const { record } of all) {
      const linked: AttemptRecord = { ...record, manifestSha256, previousSha256: headSha256 };
      headSha256 = attemptRecordSha256(linked);
      merged.push(linked);
      await writer.append(linked);
    }
  } finally {
    await writer.close();
  }
  return { records: merged.length, headSha256, merged };
}
