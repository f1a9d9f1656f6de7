import { canonicalJson } from '@chi/run';
import { RunFolderDamagedError, type StudySessionRecord, type StudyState } from '@chi/spec';
import type { StudyPaths } from './study-folder';
import { readStudyState, rebuildSessionNotebooks } from './study-state';

/**
 * The state the finished sessions ended with, every link checked (docs/protocol.md, "Studies"):
 * each session's state file has the hash its record holds, names the previous state's hash and
 * the study manifest's, and equals the notebooks rebuilt from that session's hash-chained attempt
 * log on top of the state it continued from. Any mismatch is a damaged study (exit 5), named.
 * Null before the first session has finished.
 */
export function carriedState(
  paths: StudyPaths,
  records: readonly StudySessionRecord[],
  studyManifestSha256: string,
): { readonly state: StudyState; readonly sha256: string } | null {
  let previous: { state: StudyState; sha256: string } | null = null;
  for (const record of records) {
    const k = record.sessionIndex;
    const path = paths.sessionState(k);
    const state = readStudyState(path, record.stateSha256);
    const expectedPrevious = previous?.sha256 ?? null;
    if (
      state.sessionIndex !== k ||
      state.studyManifestSha256 !== studyManifestSha256 ||
      state.previousStateSha256 !== expectedPrevious
    )
      throw new RunFolderDamagedError(
        path,
        `does not continue the study's chain (session ${state.sessionIndex}, previous state ${state.previousStateSha256 ?? 'none'}; expected session ${k}, previous ${expectedPrevious ?? 'none'})`,
      );
    const rebuilt = rebuildSessionNotebooks(paths.sessionRun(k), previous?.state.notebooks ?? {});
    if (canonicalJson(rebuilt) !== canonicalJson(state.notebooks))
      throw new RunFolderDamagedError(
        path,
        `its notebooks differ from those rebuilt from the attempt log of session s${k}`,
      );
    previous = { state, sha256: record.stateSha256 };
  }
  return previous;
}
