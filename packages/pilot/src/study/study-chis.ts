import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StudyChisEntry, StudySessionRecord } from '@chi/spec';
import { daysBetween } from './study-schedule';

/** One study CHIS entry per memory observation of a finished session's release (`stateWrittenAt`: when session 0 finished). */
export function chisEntries(
  releaseDir: string,
  record: StudySessionRecord,
  stateWrittenAt: Date,
): StudyChisEntry[] {
  const path = join(releaseDir, 'scores', 'memory.jsonl');
  if (!existsSync(path)) return [];
  const lines = readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '');
  return lines.flatMap((line) => {
    const observation = JSON.parse(line) as {
      systemId: string;
      worldSeed: number;
      load: number;
      condition: string;
      blockComplete: boolean;
      score: { qualityScore: number | null; factors: { r: number } | null } | null;
    };
    if (observation.condition !== 'notebook') return [];
    return [
      {
        kind: 'study-chis-entry' as const,
        sessionIndex: record.sessionIndex,
        wallClock: record.finishedAt,
        // one experience ingested (the encode of session 0); later sessions only ask
        eventCount: 1,
        delayDays: Math.max(0, daysBetween(stateWrittenAt, new Date(record.finishedAt))),
        systemId: observation.systemId,
        worldSeed: observation.worldSeed,
        load: observation.load,
        qualityScore: observation.score?.qualityScore ?? null,
        retrieval: observation.score?.factors?.r ?? null,
        blockComplete: observation.blockComplete,
      },
    ];
  });
}
