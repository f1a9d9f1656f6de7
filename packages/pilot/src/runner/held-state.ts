import type { RunWorldMaps } from '../run-folder/run-worlds';

// The held state's type on its own: the session holds it (`RunSession.held`), and
// run-held-state.ts, which changes it, reads the session.

/**
 * What a session holds only while a request without an outcome still needs it, so that its
 * memory grows with the largest world, not with the run:
 *
 * - the worlds of a world seed, read when a request of that seed is first rendered and dropped
 *   once every request of that seed has its outcome;
 * - the instance models of a block (`RunSession.instanceModels`), dropped with its notebooks;
 * - the notebooks a block's requests wrote (`RunSession.notebooks`, the reply copies and the
 *   notebooks kept by request ID for a `notebookSource` included), dropped once no request
 *   without an outcome is in that block or depends on one of its requests, directly or through
 *   other requests (a reader of a notebook, or of a named notebook source, always depends on its
 *   writer); a starting notebook (no writer) is kept.
 *
 * Its bookkeeping is by plan ordinal and block ordinal, in typed arrays: a few bytes a request.
 * A request's outcome is packed (`OutcomeTable`): no reply text, no result object.
 */
export interface HeldState {
  /** The worlds read and not yet dropped: what a request renders with. */
  readonly worlds: RunWorldMaps;
  /** The read of each world seed's worlds, started once (dropped with them). */
  readonly reading: Map<number, Promise<void>>;
  /** The worlds of the request that asked last: each request renders after the one before it. */
  lastRender: Promise<void>;
  /** The run's world seeds (a request of another seed has no world files). */
  readonly worldSeeds: ReadonlySet<number>;
  /** Requests without an outcome, by world seed. */
  readonly pendingBySeed: Map<number, number>;
  /** Requests without an outcome in a block or depending on it (transitively), by block ordinal. */
  readonly pendingByBlock: Int32Array;
  /**
   * The blocks each request keeps while it has no outcome (its own and its dependencies',
   * transitively), by plan ordinal; null until {@link countPendingRequests}.
   */
  keptBlocks: KeptBlocks | null;
  /** Whether each request is counted as pending (its kept blocks not yet released), by ordinal. */
  readonly counted: Uint8Array;
  /** The block ordinal whose request wrote each notebook of `RunSession.notebooks`, by key. */
  readonly notebookWriters: Map<string, number>;
  /** The keys of the starting notebooks (kept for the whole session, even once written). */
  readonly startingKeys: ReadonlySet<string>;
}

/** The kept blocks of every request: those of request `r` are `items[offsets[r] .. offsets[r + 1])`. */
export interface KeptBlocks {
  readonly offsets: Uint32Array;
  readonly items: Int32Array;
}
