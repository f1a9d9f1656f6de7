/** One difference found by `verifyRelease`. */
export interface VerifyMismatch {
  /** The release file, relative to its root. */
  readonly file: string;
  /**
   * - `hash`: the file does not match SHA256SUMS (or is missing / unlisted);
   * - `raw`: a raw record is unreadable or inconsistent (manifest hash, request hash);
   * - `value`: a number or value differs from the recomputation, or the published file cannot be
   *   read or parsed (the message says why);
   * - `missing`: a file the recomputation produces is absent;
   * - `unexpected`: a derived-looking file the recomputation does not produce.
   */
  readonly kind: 'hash' | 'raw' | 'value' | 'missing' | 'unexpected';
  /** Where in the file: a JSON path, `row 3, column estimate`, `line 12`; null for the whole file. */
  readonly at: string | null;
  readonly recorded: string | null;
  readonly recomputed: string | null;
  /** One line for a human. */
  readonly message: string;
}
