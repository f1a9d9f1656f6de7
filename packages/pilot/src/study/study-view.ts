import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startViewServer, type ViewServer } from '@chi/report/viewer';
import { RUN_FILE_NAME } from '@chi/run/internal';
import { studyPaths } from './study-folder';

/**
 * The session run folders of a study folder in session order (`sessions/s0`, `sessions/s1`, ...),
 * or null when `dir` is not a study folder. Only the folder layout is read (`chi view` stays on
 * its own small module graph).
 */
export function studySessionRuns(dir: string): string[] | null {
  const paths = studyPaths(dir);
  if (!existsSync(paths.manifest) || !existsSync(paths.sessions)) return null;
  return readdirSync(paths.sessions, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && /^s\d+$/.test(entry.name))
    .map((entry) => Number(entry.name.slice(1)))
    .sort((a, b) => a - b)
    .map((k) => paths.sessionRun(k))
    .filter((run) => existsSync(join(run, RUN_FILE_NAME.manifest)));
}

/**
 * `chi view STUDY_DIR`: the study's sessions served as a folder of runs (`/` lists s0, s1, ... in
 * session order, each browsable down to a probe under `/run/s<k>/`, and any two compared side by
 * side, paired by world); the study report (`study-report.md`: sessions on a time axis, their
 * completeness and spend, the CHIS trajectory) is named beside the URL.
 */
export async function startStudyView(
  dir: string,
  runs: readonly string[],
  port: number,
): Promise<ViewServer> {
  return await startViewServer({ dir, runs: [...runs], port });
}
