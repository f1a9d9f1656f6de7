import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type AttemptRecord,
  RunFolderDamagedError,
  type RunManifest,
  type RunStatus,
} from '@chi/spec';
import { ATTEMPT_ANCHOR_FILE, readAttemptAnchor } from './attempt-anchor';
import {
  AttemptChainChecker,
  type AttemptChainFileCheck,
  type AttemptLogAnchor,
} from './attempt-chain';
import { sha256Hex } from './canonical-json';
import { fileLines } from './file-lines';
import { ExpectationFold, ledgerContradictions, readLedgerEntries } from './ledger-reconcile';

/** What {@link checkRunIntegrity} checks a folder against. */
export interface RunIntegrityInput {
  /** The run folder (or a release's folder, with `release`). */
  readonly root: string;
  /** The hash of the manifest as read (every attempt record must carry it). */
  readonly manifestSha256: string;
  /** The manifest: its systems (which need a ledger) and its prompt hashes. */
  readonly manifest: Pick<RunManifest, 'systems' | 'prompts'>;
  /** `status.json` as read, or null when there is none. */
  readonly status: Pick<RunStatus, 'attemptLog'> | null;
  /**
   * A release's raw part: it has no `attempts.head.json` (private to the run folder); its anchor
   * is the release hash published elsewhere. Default false: the anchor file is required.
   */
  readonly release?: boolean;
  /**
   * `required` (default): a run with attempts of live systems must have a ledger that agrees
   * with them. `if-present`: only a ledger that exists is reconciled (a session whose models
   * were injected, which never opens one).
   */
  readonly ledger?: 'required' | 'if-present';
}

/** What {@link checkRunIntegrity} found. */
export interface RunIntegrity {
  /** Every problem, by the folder-relative path (POSIX) of the file it is in; empty when intact. */
  readonly problems: ReadonlyMap<string, readonly string[]>;
  /** The attempt log's chain: where it ends, whether it is chained. */
  readonly chain: AttemptChainFileCheck;
}

/**
 * The one integrity check of a run folder, shared by resume (`chi pilot --resume`), `chi score`
 * and `chi verify`, so that every command that reads a file names the same edits:
 *
 * - `attempts.jsonl`: every record of this manifest, the hash chain unbroken, and each anchor
 *   held: the head `status.json` recorded at the end of a session and the head
 *   `attempts.head.json` recorded after the latest append (so the last record is anchored even
 *   when `status.json` is deleted);
 * - `attempts.head.json`: present whenever the log holds records `status.json` does not anchor
 *   (deleting it to hide an edit of the last records is itself caught), and well-formed;
 * - `ledger.jsonl`: agrees with the attempt log (not deleted, rolled back or cut; commits at least
 *   what the results record as charged);
 * - `prompts/<name>@<version>.txt`: every template of `manifest.prompts` there, byte for byte.
 *
 * The log is streamed once. This detects edits that leave another file unchanged; a writer who
 * rewrites every file consistently (log, anchors, ledger) is not caught without an anchor kept
 * outside the folder (docs/run-folder-integrity.md).
 */
export async function checkRunIntegrity(input: RunIntegrityInput): Promise<RunIntegrity> {
  const problems = new Map<string, string[]>();
  const add = (file: string, problem: string) =>
    problems.set(file, [...(problems.get(file) ?? []), problem]);
  const anchors: AttemptLogAnchor[] = [];
  const statusAnchor = input.status?.attemptLog ?? null;
  if (statusAnchor !== null) anchors.push({ ...statusAnchor, file: 'status.json' });
  const anchorRead =
    input.release === true
      ? ({ kind: 'absent' } as const)
      : await readAttemptAnchor(join(input.root, ATTEMPT_ANCHOR_FILE));
  if (anchorRead.kind === 'anchor') anchors.push(anchorRead.anchor);
  if (anchorRead.kind === 'damaged') add(ATTEMPT_ANCHOR_FILE, anchorRead.problem);

  const { chain, expectation } = await streamAttemptLog(input, anchors);
  for (const problem of chain.problems) add('attempts.jsonl', problem);
  const missing = missingAnchorProblem(input, anchorRead.kind === 'absent', chain);
  if (missing !== null) add(ATTEMPT_ANCHOR_FILE, missing);

  for (const problem of await ledgerProblems(input, expectation)) add('ledger.jsonl', problem);
  for (const [file, problem] of await promptProblems(input)) add(file, problem);
  return { problems, chain };
}

/**
 * A chained log with records no anchor covers, and no `attempts.head.json`: the anchor was
 * deleted (a log written before the chain existed, or a release, has none to require).
 */
function missingAnchorProblem(
  input: RunIntegrityInput,
  absent: boolean,
  chain: AttemptChainFileCheck,
): string | null {
  const statusAnchor = input.status?.attemptLog ?? null;
  const anchoredRecords = statusAnchor?.records ?? 0;
  if (input.release === true || !absent || !chain.chained || chain.records <= anchoredRecords)
    return null;
  const status =
    input.status === null
      ? 'status.json is missing too'
      : statusAnchor === null
        ? 'status.json anchors none'
        : `status.json anchors only ${anchoredRecords}`;
  return `missing, but attempts.jsonl holds ${chain.records} records and ${status}: the last records are anchored by nothing (the anchor was deleted)`;
}

async function streamAttemptLog(
  input: RunIntegrityInput,
  anchors: readonly AttemptLogAnchor[],
): Promise<{ chain: AttemptChainFileCheck; expectation: ExpectationFold }> {
  const checker = new AttemptChainChecker(input.manifestSha256, anchors);
  const expectation = new ExpectationFold(input.manifest.systems);
  let chained: boolean | null = null;
  for await (const line of fileLines(join(input.root, 'attempts.jsonl'))) {
    if (!line.terminated) break;
    chained ??= line.text.includes('"previousSha256"');
    const record = checker.line(line.text);
    try {
      if (record !== undefined) expectation.add(record as AttemptRecord);
    } catch {
      // A record too malformed to fold is not this record's only problem: the chain names it.
    }
  }
  const { sha256s: _none, ...check } = checker.finish();
  return {
    chain: { ...check, chained: check.records === 0 || chained === true },
    expectation,
  };
}

async function ledgerProblems(
  input: RunIntegrityInput,
  expectation: ExpectationFold,
): Promise<readonly string[]> {
  const path = join(input.root, 'ledger.jsonl');
  try {
    const entries = await readLedgerEntries(path);
    if (entries === null && input.ledger === 'if-present') return [];
    return ledgerContradictions(expectation.result(), entries);
  } catch (error) {
    if (!RunFolderDamagedError.isInstance(error)) throw error;
    return [error.message.slice(`damaged run folder: ${path}: `.length)];
  }
}

async function promptProblems(input: RunIntegrityInput): Promise<Array<[string, string]>> {
  const problems: Array<[string, string]> = [];
  for (const ref of input.manifest.prompts) {
    const file = `prompts/${ref.name}@${ref.version}.txt`;
    let text: string;
    try {
      text = await readFile(join(input.root, file), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      problems.push([file, `prompt ${ref.name}@${ref.version} of manifest.prompts is missing`]);
      continue;
    }
    const sha256 = sha256Hex(text);
    if (sha256 !== ref.sha256)
      problems.push([
        file,
        `its SHA-256 ${sha256} differs from ${ref.sha256} frozen in manifest.prompts: the prompt was edited after the run was created`,
      ]);
  }
  return problems;
}

/**
 * Throws when `problems` holds any: names the first damaged file (joined to `root`) and up to
 * three of its problems, and how many other files are damaged.
 *
 * @throws `RunFolderDamagedError` (`@chi/spec`)
 */
export function throwIfRunDamaged(
  root: string,
  problems: ReadonlyMap<string, readonly string[]>,
  suffix = '',
): void {
  const [first] = problems;
  if (first === undefined) return;
  const [file, list] = first;
  const others =
    problems.size > 1
      ? ` (and ${problems.size - 1} more damaged files: ${[...problems.keys()].slice(1, 4).join(', ')})`
      : '';
  throw new RunFolderDamagedError(
    join(root, ...file.split('/')),
    `${list.slice(0, 3).join('; ')}${others}${suffix}`,
  );
}
