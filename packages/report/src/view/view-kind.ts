import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { runFolderPaths } from '@chi/run/internal';
import { SHA256SUMS_FILE } from '../release/sha256-sums';
import { manifestProtocolOf } from '../run-folder/manifest-protocol';

/** One answer of a view kind: a page (or any text) with its status and content type. */
export interface ViewKindPage {
  readonly status: number;
  /** e.g. `text/html; charset=utf-8`, `image/svg+xml`. */
  readonly type: string;
  readonly body: string;
}

/**
 * A view kind: what `chi view` shows of a protocol's release (one that is not the default
 * pilot's, e.g. the divergence protocol's), the viewer's counterpart of `ReleaseKind`. The kind
 * supplies only its pages; `@chi/report/viewer` owns everything else, once for every kind: the
 * choice of kind by the manifest's `protocol`, the server (loopback only, port 0 picks a free
 * one, `GET` only, `no-store`, a path whose percent-encoding is malformed or whose segment is
 * `.`, `..` or holds a slash is refused with 400 before the kind sees it, an error is a 500 with
 * its one-line message, `close()` on Ctrl-C) and the bundle writer (`--bundle OUT`).
 *
 * It is a separate object from the `ReleaseKind` of the same protocol because `chi view` has its
 * own module graph: a view kind must not import the release writer (nor, through it, vega).
 * `@chi/report` knows no view kind; the caller (the `chi` CLI) passes them in.
 *
 * @example
 * ```ts
 * const kind: ViewKind = {
 *   specificationVersion: 'v1',
 *   protocol: 'my-protocol-v1',
 *   name: 'my-protocol release',
 *   shows: 'the summary table',
 *   answer: async (release, path) =>
 *     path.length === 0
 *       ? { status: 200, type: 'text/html; charset=utf-8', body: await summaryPage(release) }
 *       : { status: 404, type: 'text/plain', body: 'not found' },
 *   bundle: async (release) => new Map([['index.html', await summaryPage(release)]]),
 * };
 * const server = await startViewServer({ dir: 'chi-runs/my-run', kinds: [kind] });
 * ```
 */
export interface ViewKind {
  readonly specificationVersion: 'v1';
  /** The manifest's `protocol` this kind shows: the viewer picks the kind by it. */
  readonly protocol: string;
  /** What the viewer calls a release of this kind in messages (`divergence release`). */
  readonly name: string;
  /** What its pages show, for the line `chi view` prints (`systems, grids by checkpoint`). */
  readonly shows: string;
  /**
   * Reads what every page needs once before the server listens, so that a damaged release fails
   * `chi view` at once (a typed error naming the file) rather than on the first request.
   */
  open?(release: string): Promise<void>;
  /**
   * Answers one `GET` below the root: `path` is the request path's segments, each decoded
   * (`[]` for `/`, `['system', 'a b']` for `/system/a%20b`). Read from the release when asked
   * (a release written again shows on reload).
   */
  answer(release: string, path: readonly string[]): Promise<ViewKindPage>;
  /**
   * The static copy `chi view --bundle OUT` writes: release-relative path (`/`-separated) ->
   * exact text; it holds `index.html`, which opens from the file system with no server.
   */
  bundle(release: string): Promise<ReadonlyMap<string, string>>;
}

/** The release a view kind shows, chosen by `viewKindOf`. */
export interface ViewedRelease {
  readonly kind: ViewKind;
  /** The release folder the kind's pages read. */
  readonly release: string;
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
}

/** The kind whose protocol the manifest of the release `dir` names (null: none, or no release). */
async function kindOfRelease(dir: string, kinds: readonly ViewKind[]): Promise<ViewKind | null> {
  if (!(await isFile(join(dir, SHA256SUMS_FILE)))) return null;
  const protocol = await manifestProtocolOf(dir);
  return kinds.find((kind) => kind.protocol === protocol) ?? null;
}

/**
 * What `chi view DIR` shows through a view kind: `DIR` itself when it is a release (it holds
 * `SHA256SUMS`) whose manifest names one of `kinds`' protocols, else the `release/` of the run
 * folder `DIR` when that is one; null otherwise (the default pilot's viewer then applies, as it
 * does to a run of such a protocol whose release is not written yet). The one place the viewer
 * picks a kind.
 */
export async function viewKindOf(
  dir: string,
  kinds: readonly ViewKind[],
): Promise<ViewedRelease | null> {
  if (kinds.length === 0) return null;
  for (const release of [dir, runFolderPaths(dir).releaseDir]) {
    const kind = await kindOfRelease(release, kinds);
    if (kind !== null) return { kind, release };
  }
  return null;
}

/**
 * The decoded segments of a request path, or null when one is unsafe to hand to a kind: its
 * percent-encoding is malformed, or a decoded segment is `.` or `..` or holds `/`, `\` or NUL.
 * `/` is `[]`; a trailing slash adds no segment.
 */
export function viewPathSegments(pathname: string): string[] | null {
  const raw = pathname.split('/').slice(1);
  if (raw.at(-1) === '') raw.pop();
  const segments: string[] = [];
  for (const part of raw) {
    let segment: string;
    try {
      segment = decodeURIComponent(part);
    } catch {
      return null;
    }
    if (segment === '.' || segment === '..' || /[/\\\0]/.test(segment)) return null;
    segments.push(segment);
  }
  return segments;
}
