import { canonicalJson, sha256Hex } from './canonical-json';
import { fileLines } from './file-lines';

/** The hash a record contributes to the attempt log's chain: SHA-256 of its RFC 8785 JSON. */
export function attemptRecordSha256(record: unknown): string {
  return sha256Hex(canonicalJson(record));
}

/** What checking an attempt log's integrity found. */
export interface AttemptChainCheck {
  /** Complete records (a torn final line, left by a crash, is not counted). */
  readonly records: number;
  /** Hash of the last record, or null for an empty log. */
  readonly headSha256: string | null;
  /**
   * Hash of every record, in order (to check an anchor at any earlier count); empty when the
   * checker was given its anchor up front (`AttemptChainChecker`), which keeps no hash but
   * the anchored one.
   */
  readonly sha256s: readonly string[];
  /** Every contradiction, one sentence each, naming the line; empty when the log is intact. */
  readonly problems: readonly string[];
}

/**
 * An anchor the run recorded elsewhere (`status.json`, `attempts.head.json`): the log had
 * `records` lines ending in `headSha256`.
 */
export interface AttemptLogAnchor {
  readonly records: number;
  readonly headSha256: string | null;
  /** The file that recorded it, for messages (default `status.json`). */
  readonly file?: string;
}

/**
 * Checks the raw text of an `attempts.jsonl` (a run folder's, or a release's canonical copy):
 * every record carries this run's manifest hash, and the hash chain (`previousSha256`, the hash
 * of the previous record) is unbroken from the first record. A log whose records carry no
 * `previousSha256` at all predates the chain and is checked for the manifest hash only. With an
 * `anchor` (from `status.json`), the log must still hold that many records and the record at
 * that count must hash to the anchored head: an emptied, cut or rewritten log is caught even when
 * its chain was recomputed.
 *
 * A last line without its newline (an append a crash cut short) is not part of the log.
 * It detects edits made without recomputing the chain; it is not a signature.
 */
export function checkAttemptChain(
  text: string,
  manifestSha256: string,
  anchor: AttemptLogAnchor | null = null,
): AttemptChainCheck {
  // A last line without its newline is an unacknowledged append (a crash mid-write), even when
  // it parses: dropped, as the runner's reader drops it.
  const chain = new AttemptChainChecker(manifestSha256);
  for (const line of text.split('\n').slice(0, -1)) chain.line(line);
  return chain.finish(anchor);
}

/**
 * {@link checkAttemptChain} one newline-terminated line at a time, so a log is checked while it
 * is streamed from disk, never held whole. Feed every complete line (without its newline) in
 * order, then call `finish`. Given its `anchor` up front, it checks the anchor as the anchored
 * record goes by and holds a constant number of hashes, whatever the log's length; without one,
 * it keeps every record's hash so that `finish` can check an anchor given then.
 */
export class AttemptChainChecker {
  readonly #manifestSha256: string;
  readonly #problems: string[] = [];
  readonly #sha256s: string[] | null;
  readonly #anchors: readonly AttemptLogAnchor[] | undefined;
  readonly #anchoredSha256s = new Map<number, string>();
  #records = 0;
  #chained: boolean | null = null;
  #previous: string | null = null;
  #unparsable = 0;

  constructor(
    manifestSha256: string,
    anchor?: AttemptLogAnchor | readonly AttemptLogAnchor[] | null,
  ) {
    this.#manifestSha256 = manifestSha256;
    this.#anchors =
      anchor === undefined
        ? undefined
        : anchor === null
          ? []
          : 'records' in anchor
            ? [anchor]
            : anchor;
    this.#sha256s = anchor === undefined ? [] : null;
  }

  /** Checks the next line of the log; returns its parsed record, or undefined when it is not JSON. */
  line(line: string): unknown {
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      this.#unparsable += 1;
      this.#problems.push(`line ${this.#records + this.#unparsable} is not JSON`);
      return undefined;
    }
    this.record(record);
    return record;
  }

  /** Checks the next record of the log, already parsed from its line. */
  record(record: unknown): void {
    this.#checkLinks(record, this.#records + this.#unparsable + 1);
    this.#previous = attemptRecordSha256(record);
    this.#records += 1;
    this.#sha256s?.push(this.#previous);
    if (this.#anchors?.some((anchor) => anchor.records === this.#records))
      this.#anchoredSha256s.set(this.#records, this.#previous);
  }

  #checkLinks(record: unknown, number: number): void {
    const fields = (typeof record === 'object' && record !== null ? record : {}) as {
      manifestSha256?: unknown;
      previousSha256?: unknown;
    };
    const manifestSha256 = this.#manifestSha256;
    if (fields.manifestSha256 !== manifestSha256)
      this.#problems.push(
        `line ${number} carries manifest hash ${String(fields.manifestSha256)}, not this run's ${manifestSha256}`,
      );
    const hasLink = fields.previousSha256 !== undefined;
    this.#chained ??= hasLink;
    if (this.#chained && !hasLink)
      this.#problems.push(`line ${number} has no previousSha256 in a chained log`);
    else if (!this.#chained && hasLink)
      this.#problems.push(
        `line ${number} has a previousSha256 in a log whose first record has none`,
      );
    else if (this.#chained && fields.previousSha256 !== this.#previous)
      this.#problems.push(
        `line ${number} does not follow the record before it (previousSha256 ${String(fields.previousSha256)}, expected ${String(this.#previous)}): a record was edited, removed or inserted`,
      );
  }

  /**
   * The check of every line fed, against the anchor given up front, or else against `anchor`
   * when given.
   */
  finish(anchor: AttemptLogAnchor | null = null): AttemptChainCheck {
    const problems = [...this.#problems];
    const records = this.#records;
    const sha256s = this.#sha256s;
    const checked = this.#anchors ?? (anchor === null ? [] : [anchor]);
    for (const { records: count, headSha256, file = 'status.json' } of checked) {
      const anchored =
        sha256s === null
          ? (this.#anchoredSha256s.get(count) ?? null)
          : (sha256s[count - 1] ?? null);
      if (records < count)
        problems.push(
          `it holds ${records} records, but ${file} saw ${count}: records were removed (emptied or cut)`,
        );
      else if (count > 0 && anchored !== headSha256)
        problems.push(
          `record ${count} does not hash to the head ${file} recorded: the log was rewritten`,
        );
    }
    return { records, headSha256: this.#previous, sha256s: [...(sha256s ?? [])], problems };
  }
}

/** `checkAttemptChainFile`'s answer: the check, and whether the log is chained. */
export interface AttemptChainFileCheck extends Omit<AttemptChainCheck, 'sha256s'> {
  /**
   * False for a log whose first record carries no `previousSha256` (written before the chain
   * existed: a writer continues it without links); true for a chained log or one without a
   * record.
   */
  readonly chained: boolean;
}

/**
 * {@link checkAttemptChain} of an `attempts.jsonl` on disk, streamed line by line
 * (`fileLines`: one chunk and the line being assembled in memory, and the anchored record's hash,
 * whatever the log's size), without the hash of every record (`sha256s`), with
 * the same answer as checking the whole text: a torn last line is not part of the log. A file
 * that does not exist is an empty log. The runner checks a log this way before a resume appends
 * to it.
 */
export async function checkAttemptChainFile(
  path: string,
  manifestSha256: string,
  anchor: AttemptLogAnchor | readonly AttemptLogAnchor[] | null = null,
): Promise<AttemptChainFileCheck> {
  // The anchor up front: checked as its record goes by, so no record's hash is kept.
  const chain = new AttemptChainChecker(manifestSha256, anchor);
  let chained: boolean | null = null;
  for await (const line of fileLines(path)) {
    if (!line.terminated) break;
    chained ??= line.text.includes('"previousSha256"');
    chain.line(line.text);
  }
  const { sha256s: _none, ...check } = chain.finish();
  return { ...check, chained: check.records === 0 || chained === true };
}
