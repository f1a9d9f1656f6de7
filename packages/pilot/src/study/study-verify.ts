import { existsSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { verifyRelease } from '@chi/report';
import { canonicalJson, sha256Hex } from '@chi/run';
import { RUN_FILE_NAME } from '@chi/run/internal';
import { ChiError } from '@chi/spec';
import { runPaths } from '../run-folder/run-folder';
import { carriedState } from './study-chain';
import { chisEntries } from './study-chis';
import { studyCohortDirs } from './study-cohort';
import { readStudyFile, studyDeclaration } from './study-file';
import { STUDY_FILE_NAME, studyPaths } from './study-folder';
import { readFrozenStudy, readStudyCatalog } from './study-manifest';
import { finishedSessions } from './study-records';
import { studyReport, studyReportMarkdown } from './study-report';

/** Whether `dir` is a study folder (`chi verify` then recomputes the whole study). */
export function isStudyFolder(dir: string): boolean {
  const paths = studyPaths(dir);
  return existsSync(paths.manifest) && existsSync(paths.study) && existsSync(paths.sessions);
}

/** One problem `chi verify` found in a study: the file and what is wrong. */
export interface StudyProblem {
  readonly file: string;
  readonly message: string;
}

/** What {@link verifyStudy} checked. */
export interface StudyVerification {
  readonly problems: readonly StudyProblem[];
  /** Sessions whose release was recomputed. */
  readonly sessions: number;
  /** Study files recomputed and compared (CHIS entries, report JSON and Markdown). */
  readonly recomputed: readonly string[];
}

const text = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : null);

/** Compares a recomputed study file with the one in the folder (a problem when they differ). */
function compare(dir: string, name: string, recomputed: string): StudyProblem | null {
  const found = text(join(dir, name));
  if (found === recomputed) return null;
  return {
    file: name,
    message:
      found === null
        ? `${name}: missing (the recomputation writes it)`
        : `${name}: differs from its recomputation (SHA-256 ${sha256Hex(found)}, recomputed ${sha256Hex(recomputed)})`,
  };
}

/** Each finished session's run manifest and release: the manifest its record names, a release that verifies. */
async function sessionProblems(
  dir: string,
  records: ReturnType<typeof finishedSessions>,
): Promise<StudyProblem[]> {
  const paths = studyPaths(dir);
  const problems: StudyProblem[] = [];
  for (const record of records) {
    const runDir = paths.sessionRun(record.sessionIndex);
    const name = `${STUDY_FILE_NAME.sessions}/s${record.sessionIndex}`;
    const manifest = text(runPaths(runDir).manifest);
    if (manifest === null || sha256Hex(manifest) !== record.runManifestSha256)
      problems.push({
        file: `${name}/${RUN_FILE_NAME.manifest}`,
        message: `${name}/${RUN_FILE_NAME.manifest}: missing or not the manifest s${record.sessionIndex}.session.json records (${record.runManifestSha256})`,
      });
    const report = await verifyRelease(runPaths(runDir).releaseDir);
    for (const mismatch of report.mismatches)
      problems.push({
        file: `${name}/release/${mismatch.file}`,
        message: `${name}/release/${mismatch.message}`,
      });
  }
  return problems;
}

/** The study CHIS entries of the finished sessions, recomputed from their releases and records. */
function recomputedEntries(
  dir: string,
  records: ReturnType<typeof finishedSessions>,
): ReturnType<typeof chisEntries> {
  const paths = studyPaths(dir);
  const stateWrittenAt = new Date(records[0]?.finishedAt ?? 0);
  return records.flatMap((record) =>
    chisEntries(runPaths(paths.sessionRun(record.sessionIndex)).releaseDir, record, stateWrittenAt),
  );
}

/**
 * Recomputes a study folder (`chi verify STUDY_DIR`, and `node code/verify.mjs .` inside it):
 * the frozen study manifest against its hash and the study file; the chain of carried states
 * (each state's recorded hash, its predecessor, and its notebooks rebuilt from its session's
 * hash-chained attempt log); each finished session's run manifest against its record and its
 * release recomputed from the raw responses (`verifyRelease`); then `study-chis.jsonl` from the
 * session releases and records and the study report from them, compared byte for byte. A damaged
 * chain is reported as a problem naming the file, not thrown.
 */
export async function verifyStudy(dir: string): Promise<StudyVerification> {
  const paths = studyPaths(dir);
  const problems: StudyProblem[] = [];
  let records: ReturnType<typeof finishedSessions> = [];
  try {
    const frozen = readFrozenStudy(paths);
    if (frozen === null) throw new ChiError(`${STUDY_FILE_NAME.manifest}: missing`);
    if (
      canonicalJson(studyDeclaration(readStudyFile(paths.study))) !==
      canonicalJson(frozen.manifest.study)
    )
      problems.push({
        file: STUDY_FILE_NAME.study,
        message: `${STUDY_FILE_NAME.study}: differs from the frozen ${STUDY_FILE_NAME.manifest}`,
      });
    records = finishedSessions(paths, frozen.manifest.study.schedule.length);
    carriedState(paths, records, frozen.sha256);
    // the catalog prices a live study froze: every session's reservations read them
    await readStudyCatalog(paths, frozen.manifest);
  } catch (error) {
    if (!ChiError.isInstance(error)) throw error;
    problems.push({ file: STUDY_FILE_NAME.sessions, message: (error as Error).message });
    return { problems, sessions: 0, recomputed: [] };
  }
  problems.push(...(await sessionProblems(dir, records)));
  // a cohort (a system added later) is a study of its own, and the report reads it
  for (const cohortDir of studyCohortDirs(dir)) {
    const name = relative(dir, cohortDir).split(sep).join('/');
    for (const problem of (await verifyStudy(cohortDir)).problems)
      problems.push({ file: `${name}/${problem.file}`, message: `${name}/${problem.message}` });
  }
  let entries: ReturnType<typeof chisEntries>;
  try {
    entries = recomputedEntries(dir, records);
  } catch (error) {
    // a session release whose scores cannot be read: its own verification names the file
    problems.push({
      file: STUDY_FILE_NAME.chis,
      message: `${STUDY_FILE_NAME.chis}: cannot be recomputed from the session releases (${(error as Error).message})`,
    });
    return { problems, sessions: records.length, recomputed: [] };
  }
  const recomputed: string[] = [STUDY_FILE_NAME.chis];
  const chis = compare(
    dir,
    STUDY_FILE_NAME.chis,
    entries.map((entry) => `${JSON.stringify(entry)}\n`).join(''),
  );
  if (chis !== null) problems.push(chis);
  else if (existsSync(paths.report) || existsSync(paths.reportMarkdown)) {
    const report = studyReport(dir);
    recomputed.push(STUDY_FILE_NAME.report, STUDY_FILE_NAME.reportMarkdown);
    for (const problem of [
      compare(dir, STUDY_FILE_NAME.report, `${canonicalJson(report)}\n`),
      compare(dir, STUDY_FILE_NAME.reportMarkdown, studyReportMarkdown(report)),
    ])
      if (problem !== null) problems.push(problem);
  }
  return { problems, sessions: records.length, recomputed };
}

/** Where {@link verifyStudyCommand} writes. */
export interface StudyVerifyIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
}

/** `chi verify STUDY_DIR`: exit 0 when every check passes, 1 otherwise (as `chi verify`). */
export async function verifyStudyCommand(dir: string, io: StudyVerifyIo): Promise<number> {
  const result = await verifyStudy(dir);
  if (result.problems.length === 0) {
    io.stdout.write(
      `OK: study; the frozen manifest, the chain of carried states and ${result.sessions} session release(s) verify; ${result.recomputed.join(', ')} recomputed from them match exactly.\n`,
    );
    return 0;
  }
  for (const problem of result.problems) io.stderr.write(`MISMATCH ${problem.message}\n`);
  const files = [...new Set(result.problems.map((problem) => problem.file))];
  io.stderr.write(
    `FAILED: ${result.problems.length} mismatch(es) in ${files.length} file(s): ${files.join(', ')}\n`,
  );
  return 1;
}
