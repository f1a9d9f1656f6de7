import type { RequestOutcome } from '@chi/run';
import type { ChatResult, PlannedRequest, RunPlan } from '@chi/spec';
import type { OpenedRun } from './run-open';
import type { RunSession } from './run-session';
import { dropSeedWorlds, type RunWorldMaps, type RunWorlds, readSeedWorlds } from './run-worlds';

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
 * A request's outcome keeps no reply text and only its last try (see {@link heldResult}).
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
  /** Requests without an outcome in a block or depending on it (transitively), by block. */
  readonly pendingByBlock: Map<string, number>;
  /** The blocks each request without an outcome keeps: its own and its dependencies'. */
  readonly keptBlocks: Map<string, readonly string[]>;
  /** The block whose request wrote each notebook of `RunSession.notebooks`, by its key there. */
  readonly notebookWriters: Map<string, string>;
  /** The keys of the starting notebooks (kept for the whole session, even once written). */
  readonly startingKeys: ReadonlySet<string>;
}

/** Nothing held yet: the session starts with no world read and no request counted. */
export function emptyHeldState(run: OpenedRun, startingKeys: ReadonlySet<string>): HeldState {
  return {
    worlds: { memory: new Map(), history: new Map(), behavior: new Map() },
    reading: new Map(),
    lastRender: Promise.resolve(),
    worldSeeds: new Set(run.manifest.worldSeeds),
    pendingBySeed: new Map(),
    pendingByBlock: new Map(),
    keptBlocks: new Map(),
    notebookWriters: new Map(),
    startingKeys,
  };
}

/** Each request's block and the blocks of every request it depends on, transitively. */
function blocksOfRequests(plan: RunPlan): Map<string, readonly string[]> {
  const blocks = new Map<string, readonly string[]>();
  for (const request of plan.requests) {
    const own = new Set([request.blockId]);
    const named = request.notebookSource;
    const needs =
      named !== undefined && named.kind !== 'empty'
        ? [...request.dependsOn, named.requestId]
        : request.dependsOn;
    for (const dependency of needs)
      for (const block of blocks.get(dependency) ?? []) own.add(block);
    blocks.set(request.requestId, [...own]);
  }
  return blocks;
}

function increment<K>(counts: Map<K, number>, key: K): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

/**
 * Drops the notebooks a block wrote that no later block overwrote, and the block's instance
 * models (`modelFor`): no request of the block is left to send to them.
 */
function dropBlockNotebooks(session: RunSession, blockId: string): void {
  const { notebookWriters } = session.held;
  for (const [key, writer] of notebookWriters) {
    if (writer !== blockId) continue;
    notebookWriters.delete(key);
    session.notebooks.delete(key);
  }
  for (const system of session.run.manifest.systems)
    session.instanceModels.delete(`${system.id}|${blockId}`);
}

/**
 * Counts the requests the session has no outcome for (after resume), and drops at once the
 * notebooks of blocks no such request keeps (those earlier sessions finished).
 */
export function countPendingRequests(session: RunSession): void {
  const held = session.held;
  const blocks = blocksOfRequests(session.run.plan);
  for (const request of session.run.plan.requests) {
    if (session.outcomes.has(request.requestId)) continue;
    const kept = blocks.get(request.requestId) ?? [request.blockId];
    held.keptBlocks.set(request.requestId, kept);
    for (const block of kept) increment(held.pendingByBlock, block);
    increment(held.pendingBySeed, request.worldSeed);
  }
  const written = new Set(held.notebookWriters.values());
  for (const block of written)
    if (!held.pendingByBlock.has(block)) dropBlockNotebooks(session, block);
}

/** Notes that a block's request wrote the notebook kept under `key` (a starting one stays). */
export function noteNotebookWriter(session: RunSession, key: string, blockId: string): void {
  if (!session.held.startingKeys.has(key)) session.held.notebookWriters.set(key, blockId);
}

/**
 * The worlds a request renders with: its world seed's, read from the run folder once. Requests
 * get them in the order they ask (dispatch order), so the rendered requests are stored in the
 * same order whether or not a request waits for a read.
 */
export async function worldsFor(session: RunSession, request: PlannedRequest): Promise<RunWorlds> {
  const held = session.held;
  const seed = request.worldSeed;
  if (held.worldSeeds.has(seed) && !held.reading.has(seed))
    held.reading.set(
      seed,
      readSeedWorlds(session.run.paths, session.run.manifest, seed, held.worlds),
    );
  const read = held.reading.get(seed);
  const turn = held.lastRender.then(() => read);
  held.lastRender = turn;
  await turn;
  return held.worlds;
}

/** A request has its outcome: drops its world seed's worlds and its blocks' notebooks if unneeded. */
function releaseHeldBy(session: RunSession, request: PlannedRequest): void {
  const held = session.held;
  const kept = held.keptBlocks.get(request.requestId);
  // Not counted: an outcome taken over on resume, before the count.
  if (kept === undefined) return;
  held.keptBlocks.delete(request.requestId);
  for (const block of kept) {
    const left = (held.pendingByBlock.get(block) ?? 1) - 1;
    if (left > 0) held.pendingByBlock.set(block, left);
    else {
      held.pendingByBlock.delete(block);
      dropBlockNotebooks(session, block);
    }
  }
  const seed = request.worldSeed;
  const left = (held.pendingBySeed.get(seed) ?? 1) - 1;
  if (left > 0) held.pendingBySeed.set(seed, left);
  else {
    held.pendingBySeed.delete(seed);
    held.reading.delete(seed);
    dropSeedWorlds(session.run.manifest, seed, held.worlds);
  }
}

/**
 * What a session keeps of a resolved request's result: no reply text, no response body and only
 * the last try (an infrastructure or account failure is read from its status), its request ID
 * the plan's string. Every later step of the session reads only the failure class, the money
 * and the kind; its notebook is already kept, and the whole result stays in the attempt log.
 */
export function heldResult(request: PlannedRequest, result: ChatResult): ChatResult {
  return {
    ...result,
    requestId: request.requestId,
    text: null,
    redactedResponse: null,
    tries: result.tries.slice(-1),
  };
}

/** Records a request's outcome (a result as {@link heldResult}) and releases what only it still needed. */
export function recordOutcome(
  session: RunSession,
  request: PlannedRequest,
  outcome: RequestOutcome,
): void {
  session.outcomes.set(
    request.requestId,
    outcome.kind === 'resolved'
      ? { kind: 'resolved', result: heldResult(request, outcome.result) }
      : outcome,
  );
  releaseHeldBy(session, request);
}
