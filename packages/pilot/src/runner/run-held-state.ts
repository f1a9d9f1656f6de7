import type { RequestOutcome } from '@chi/run';
import type { PlanIndex } from '@chi/run/internal';
import type { PlannedRequest } from '@chi/spec';
import {
  dropSeedWorlds,
  emptyWorldMaps,
  type RunWorlds,
  readSeedWorlds,
} from '../run-folder/run-worlds';
import type { HeldState, KeptBlocks } from './held-state';
import type { OpenedRun } from './opened-run';
import type { RunSession } from './run-session';

/** Nothing held yet: the session starts with no world read and no request counted. */
export function emptyHeldState(run: OpenedRun, startingKeys: ReadonlySet<string>): HeldState {
  return {
    worlds: emptyWorldMaps(),
    reading: new Map(),
    lastRender: Promise.resolve(),
    worldSeeds: new Set(run.manifest.worldSeeds),
    pendingBySeed: new Map(),
    pendingByBlock: new Int32Array(run.plan.blockCount),
    keptBlocks: null,
    counted: new Uint8Array(run.plan.requestCount),
    notebookWriters: new Map(),
    startingKeys,
  };
}

/** Each request's block and the blocks of every request it depends on, transitively. */
export function keptBlocksOf(plan: PlanIndex): KeptBlocks {
  const offsets = new Uint32Array(plan.requestCount + 1);
  let items = new Int32Array(Math.max(16, plan.requestCount * 2));
  for (let ordinal = 0; ordinal < plan.requestCount; ordinal += 1) {
    const own = new Set([plan.blockOf(ordinal)]);
    const named = plan.notebookSourceOf(ordinal);
    const needs = named >= 0 ? [...plan.dependsOn(ordinal), named] : plan.dependsOn(ordinal);
    for (const dependency of needs)
      for (const block of items.subarray(offsets[dependency], offsets[dependency + 1]))
        own.add(block);
    const at = offsets[ordinal] as number;
    if (at + own.size > items.length) {
      const grown = new Int32Array(Math.max(items.length * 2, at + own.size));
      grown.set(items);
      items = grown;
    }
    items.set([...own], at);
    offsets[ordinal + 1] = at + own.size;
  }
  return { offsets, items: items.slice(0, offsets[plan.requestCount]) };
}

/**
 * Drops the notebooks a block wrote that no later block overwrote, and the block's instance
 * models (`modelFor`): no request of the block is left to send to them.
 */
function dropBlockNotebooks(session: RunSession, block: number): void {
  const { notebookWriters } = session.held;
  for (const [key, writer] of notebookWriters) {
    if (writer !== block) continue;
    notebookWriters.delete(key);
    session.notebooks.delete(key);
  }
  const blockId = session.run.plan.blockIdAt(block);
  for (const system of session.run.manifest.systems)
    session.instanceModels.delete(`${system.id}|${blockId}`);
}

/**
 * Counts the requests the session has no outcome for (after resume), and drops at once the
 * notebooks of blocks no such request keeps (those earlier sessions finished).
 */
export function countPendingRequests(session: RunSession): void {
  const { held, outcomes } = session;
  const { plan } = session.run;
  const kept = keptBlocksOf(plan);
  held.keptBlocks = kept;
  for (let ordinal = 0; ordinal < plan.requestCount; ordinal += 1) {
    if (outcomes.has(ordinal)) continue;
    held.counted[ordinal] = 1;
    for (const block of kept.items.subarray(kept.offsets[ordinal], kept.offsets[ordinal + 1]))
      held.pendingByBlock[block] = (held.pendingByBlock[block] as number) + 1;
    const seed = plan.worldSeedOf(ordinal);
    held.pendingBySeed.set(seed, (held.pendingBySeed.get(seed) ?? 0) + 1);
  }
  const written = new Set(held.notebookWriters.values());
  for (const block of written)
    if (held.pendingByBlock[block] === 0) dropBlockNotebooks(session, block);
}

/** Notes that block `block`'s request wrote the notebook kept under `key` (a starting one stays). */
export function noteNotebookWriter(session: RunSession, key: string, block: number): void {
  if (!session.held.startingKeys.has(key)) session.held.notebookWriters.set(key, block);
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
function releaseHeldBy(session: RunSession, ordinal: number): void {
  const held = session.held;
  const kept = held.keptBlocks;
  // Not counted: an outcome taken over on resume, before the count.
  if (kept === null || held.counted[ordinal] !== 1) return;
  held.counted[ordinal] = 0;
  for (const block of kept.items.subarray(kept.offsets[ordinal], kept.offsets[ordinal + 1])) {
    const left = (held.pendingByBlock[block] as number) - 1;
    held.pendingByBlock[block] = Math.max(0, left);
    if (left <= 0) dropBlockNotebooks(session, block);
  }
  const seed = session.run.plan.worldSeedOf(ordinal);
  const left = (held.pendingBySeed.get(seed) ?? 1) - 1;
  if (left > 0) held.pendingBySeed.set(seed, left);
  else {
    held.pendingBySeed.delete(seed);
    held.reading.delete(seed);
    dropSeedWorlds(session.run.manifest, seed, held.worlds);
  }
}

/**
 * Records request `ordinal`'s outcome, packed (`OutcomeTable`: the kind, the failure class, the
 * money), and releases what only it still needed. A blocked outcome goes through
 * {@link recordBlocked}.
 */
export function recordOutcome(
  session: RunSession,
  ordinal: number,
  outcome: Exclude<RequestOutcome, { kind: 'blocked' }>,
): void {
  session.outcomes.set(ordinal, outcome);
  releaseHeldBy(session, ordinal);
}

/** Records that request `ordinal` is blocked by request `by` (ordinals), releasing as above. */
export function recordBlocked(session: RunSession, ordinal: number, by: number): void {
  session.outcomes.set(ordinal, { kind: 'blocked', by: '' }, by);
  releaseHeldBy(session, ordinal);
}
