import { existsSync, readFileSync } from 'node:fs';
import {
  RunFolderDamagedError,
  type StudySessionRecord,
  StudySessionRecordSchema,
} from '@chi/spec';
import type { StudyPaths } from './study-folder';

/**
 * The records of the finished sessions, in order (s0, s1, ... up to the first not finished). A
 * record that is not JSON, not a session record, or not the one of its slot is a damaged study
 * (exit 5), named. This module reads files only, so `chi view` can use it without loading the
 * study runner.
 */
export function finishedSessions(paths: StudyPaths, count: number): StudySessionRecord[] {
  const records: StudySessionRecord[] = [];
  for (let k = 0; k < count; k += 1) {
    const path = paths.sessionRecord(k);
    if (!existsSync(path)) break;
    let value: unknown;
    try {
      value = JSON.parse(readFileSync(path, 'utf8'));
    } catch (error) {
      throw new RunFolderDamagedError(path, 'not JSON', { cause: error });
    }
    const parsed = StudySessionRecordSchema.safeParse(value);
    if (!parsed.success || parsed.data.sessionIndex !== k)
      throw new RunFolderDamagedError(path, `not the session record of s${k}`);
    records.push(parsed.data);
  }
  return records;
}
