import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AttemptChainCheck, RequestLayout } from '@chi/run';
import { checkAttemptChain, legacyRequestPath, RUN_FILE_NAME } from '@chi/run/internal';
import { type AttemptRecord, RunFolderDamagedError, type RunStatus } from '@chi/spec';

/**
 * What the integrity checks read of a run folder's records (`RunRecords` of `./run-folder`
 * has each of these fields; this file does not import it, so the reader and its checks do not
 * import each other).
 */
export interface IntegrityRecords {
  readonly manifestSha256: string;
  readonly status: RunStatus | null;
  readonly attempts: readonly AttemptRecord[];
  readonly requestHashes: ReadonlyMap<string, string>;
  readonly requestLayout?: RequestLayout;
}

/**
 * The file that records a rendered request's metadata, for messages naming it:
 * `requests/<id>.json` in layout 0.1, `requests.jsonl` in layout 0.2.
 */
export function requestRecordFile(
  records: Pick<IntegrityRecords, 'requestLayout'>,
  requestId: string,
): string {
  return records.requestLayout === '0.1'
    ? legacyRequestPath(requestId)
    : RUN_FILE_NAME.requestIndex;
}

/** Every contradiction found in a run folder, by the file it is in. */
export type IntegrityProblems = ReadonlyMap<string, readonly string[]>;

/**
 * Lists what makes a run folder (or a release's raw part) untrustworthy, from its parsed records
 * and the raw text of its attempt log:
 *
 * - `attempts.jsonl`: a record of another manifest; a broken hash chain (an edited, removed or
 *   inserted record); fewer records than `status.json` saw, or a different head (emptied, cut or
 *   rewritten);
 * - `status.json`: a manifest hash other than the manifest's (the manifest was edited and its
 *   `manifest.sha256` rewritten);
 * - `requests.jsonl` (layout 0.2; `requests/<id>.json` in layout 0.1): no request for one the
 *   attempt log resolved, or one with another `requestSha256` than the attempt's (scores read what
 *   was asked from it). A missing or altered payload is refused when it is read (`@chi/run`).
 */
export function integrityProblems(
  records: IntegrityRecords,
  attemptsText: string,
): IntegrityProblems {
  const anchor = records.status?.attemptLog ?? null;
  return integrityProblemsWith(
    records,
    checkAttemptChain(attemptsText, records.manifestSha256, anchor),
  );
}

/** {@link integrityProblems} with the attempt log's chain already checked (while it was streamed). */
export function integrityProblemsWith(
  records: IntegrityRecords,
  chain: AttemptChainCheck,
): IntegrityProblems {
  const problems = new Map<string, string[]>();
  const add = (file: string, problem: string) =>
    problems.set(file, [...(problems.get(file) ?? []), problem]);
  for (const problem of chain.problems) add(RUN_FILE_NAME.attempts, problem);
  if (records.status !== null && records.status.manifestSha256 !== records.manifestSha256)
    add(
      RUN_FILE_NAME.status,
      `it records manifest hash ${records.status.manifestSha256}, but ${RUN_FILE_NAME.manifest} hashes to ${records.manifestSha256}: the manifest was changed after the run started`,
    );
  for (const attempt of records.attempts) {
    if (attempt.phase !== 'after_response') continue;
    const file = requestRecordFile(records, attempt.requestId);
    const recorded = records.requestHashes.get(attempt.requestId);
    const what = records.requestLayout === '0.1' ? '' : `the line of ${attempt.requestId}: `;
    if (recorded === undefined)
      add(
        file,
        `${records.requestLayout === '0.1' ? 'missing' : `no line for ${attempt.requestId}`}, but ${RUN_FILE_NAME.attempts} resolved ${attempt.attemptId}: scores need what was asked`,
      );
    else if (recorded !== attempt.requestSha256)
      add(
        file,
        `${what}its requestSha256 ${recorded} is not the ${attempt.requestSha256} of ${attempt.attemptId}`,
      );
  }
  return problems;
}

/**
 * Throws when {@link integrityProblems} finds anything: nothing is scored from a folder that
 * cannot be trusted.
 *
 * @throws `RunFolderDamagedError` (`@chi/spec`) naming the first damaged file and its problems
 */
export async function assertRunFolderIntact(dir: string, records: IntegrityRecords): Promise<void> {
  let attemptsText = '';
  try {
    attemptsText = await readFile(join(dir, RUN_FILE_NAME.attempts), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  throwIfDamaged(dir, integrityProblems(records, attemptsText));
}

/**
 * Throws `RunFolderDamagedError` naming the first damaged file when `problems` holds any.
 *
 * @throws `RunFolderDamagedError` (`@chi/spec`)
 */
export function throwIfDamaged(dir: string, problems: IntegrityProblems): void {
  const [first] = problems;
  if (first === undefined) return;
  const [file, list] = first;
  const others =
    problems.size > 1
      ? ` (and ${problems.size - 1} more damaged files: ${[...problems.keys()].slice(1, 4).join(', ')})`
      : '';
  throw new RunFolderDamagedError(join(dir, file), `${list.slice(0, 3).join('; ')}${others}`);
}
