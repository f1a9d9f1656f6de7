import { manifestProtocolOf } from '../run-folder/manifest-protocol';

/**
 * What a protocol's release (one that is not the default pilot's) computes from its raw files:
 * every derived file as its exact text, and what `writeRelease` reports about the run.
 */
export interface ReleaseKindDerived {
  /** Every derived file: release-relative path (`/`-separated) -> exact text. */
  readonly files: ReadonlyMap<string, string>;
  /** The run's ID for `ReleaseSummary.runId`; default the run folder's name. */
  readonly runId?: string;
  /** The evidence banner (scripted, synthetic, undeclared endpoint), or null for live models. */
  readonly evidenceBanner: string | null;
}

/**
 * A release kind: what differs between the default pilot's release and a protocol's release
 * (e.g. the divergence protocol's), which `writeRelease` and `verifyRelease` are given and which
 * otherwise share everything: the staging folder, the secret scan of every published file, the
 * atomic move into place, the refusal to replace a folder that is not a release, `SHA256SUMS`
 * last; and on verify the `SHA256SUMS` check, the recomputation compared value by value
 * (`VerifyMismatch` with the JSON path, row or line) and the report of unexpected files.
 *
 * A kind says (a) which run files are its raw part, copied into the release (canonically as the
 * pilot's raw files are, or byte for byte: `rawCopy`), and (b) how
 * its derived files are computed from a folder with those raw files: the run folder when
 * writing, the release itself when verifying. `@chi/report` knows no kind but the pilot's; the
 * caller (the `chi` CLI) passes the others in.
 *
 * @example
 * ```ts
 * const kind: ReleaseKind = {
 *   specificationVersion: 'v1',
 *   protocol: 'my-protocol-v1',
 *   isRawPath: (path) => path === 'manifest.json' || path === 'attempts.jsonl',
 *   derive: async (dir) => ({ files: new Map([['summary.csv', await summarize(dir)]]), evidenceBanner: null }),
 * };
 * await writeRelease({ runDir, outDir, kind });
 * await verifyRelease(outDir, { kinds: [kind] });
 * ```
 */
export interface ReleaseKind {
  readonly specificationVersion: 'v1';
  /** The manifest's `protocol` this kind publishes: `verifyRelease` picks the kind by it. */
  readonly protocol: string;
  /**
   * How the raw files are published: `canonical` (the pilot's: JSON re-serialized as RFC 8785,
   * JSONL line by line, gzip byte for byte) or `verbatim` (every file byte for byte, as the run
   * wrote it). Default `canonical`. Either way every file is scanned for secrets.
   */
  readonly rawCopy?: 'canonical' | 'verbatim';
  /** Whether a run-relative path is one of the raw files the release copies from the run. */
  isRawPath(path: string): boolean;
  /**
   * Every derived file, computed from `dir` (a run folder, or a release: its raw part has the run
   * folder's layout). Pure in what it reads: the same raw files give the same bytes. A damaged raw
   * file throws `RunFolderDamagedError` naming it (`verifyRelease` reports it as a `raw` mismatch).
   */
  derive(dir: string): Promise<ReleaseKindDerived>;
}

/**
 * The kind among `kinds` whose protocol the manifest of `dir` names, or null (the default pilot's
 * release, or a folder whose manifest cannot be read: the pilot's verifier then reports it).
 */
export async function releaseKindOf(
  dir: string,
  kinds: readonly ReleaseKind[],
): Promise<ReleaseKind | null> {
  if (kinds.length === 0) return null;
  const protocol = await manifestProtocolOf(dir);
  return kinds.find((kind) => kind.protocol === protocol) ?? null;
}
