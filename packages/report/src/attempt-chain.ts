import { canonicalJson, sha256Hex } from './canonical-json';

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
  /** Hash of every record, in order (to check an anchor at any earlier count). */
  readonly sha256s: readonly string[];
  /** Every contradiction, one sentence each, naming the line; empty when the log is intact. */
  readonly problems: readonly string[];
}

/** An anchor the run recorded elsewhere (`status.json`): the log had `records` lines ending in `headSha256`. */
export interface AttemptLogAnchor {
  readonly records: number;
  readonly headSha256: string | null;
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
  const lines = text.split('\n').slice(0, -1);
  const problems: string[] = [];
  const sha256s: string[] = [];
  let chained: boolean | null = null;
  let previous: string | null = null;
  for (const [index, line] of lines.entries()) {
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      problems.push(`line ${index + 1} is not JSON`);
      continue;
    }
    const fields = (typeof record === 'object' && record !== null ? record : {}) as {
      manifestSha256?: unknown;
      previousSha256?: unknown;
    };
    if (fields.manifestSha256 !== manifestSha256)
      problems.push(
        `line ${index + 1} carries manifest hash ${String(fields.manifestSha256)}, not this run's ${manifestSha256}`,
      );
    const hasLink = fields.previousSha256 !== undefined;
    chained ??= hasLink;
    if (chained && !hasLink)
      problems.push(`line ${index + 1} has no previousSha256 in a chained log`);
    else if (!chained && hasLink)
      problems.push(`line ${index + 1} has a previousSha256 in a log whose first record has none`);
    else if (chained && fields.previousSha256 !== previous)
      problems.push(
        `line ${index + 1} does not follow the record before it (previousSha256 ${String(fields.previousSha256)}, expected ${String(previous)}): a record was edited, removed or inserted`,
      );
    previous = attemptRecordSha256(record);
    sha256s.push(previous);
  }
  if (anchor !== null) {
    if (sha256s.length < anchor.records)
      problems.push(
        `it holds ${sha256s.length} records, but status.json saw ${anchor.records}: records were removed (emptied or cut)`,
      );
    else if (anchor.records > 0 && sha256s[anchor.records - 1] !== anchor.headSha256)
      problems.push(
        `record ${anchor.records} does not hash to the head status.json recorded: the log was rewritten`,
      );
  }
  return { records: sha256s.length, headSha256: previous, sha256s, problems };
}
