import type { RunPlan } from '@chi/spec';
import { indexPlan, type PlanIndex } from '@chi/run/internal';
import { emptyHeldState } from '../runner/run-held-state';
import type { OpenedRun } from '../runner/opened-run';
import { OutcomeTable } from '../runner/run-outcomes';
import type { RunSession } from '../runner/run-session';

/** One request of a plan shape: its block, and the earlier requests (by index) it depends on. */
export interface PlanShapeEntry {
  readonly block: number;
  readonly deps: readonly number[];
}

/**
 * A plan of `shape` for the scheduler's and the held state's property tests: request `r<i>` of
 * one system in block `b<block>` (world seed = block), depending on the earlier requests listed
 * (later or repeated indexes dropped), and its blocks in order of first request. Only the fields
 * those tests read are filled in.
 */
export function planOf(shape: readonly PlanShapeEntry[]): RunPlan {
  const requests = shape.map((entry, index) => ({
    requestId: `r${index}`,
    blockId: `b${entry.block}`,
    worldSeed: entry.block,
    systemId: 's',
    dependsOn: [...new Set(entry.deps.filter((dep) => dep < index))].map((dep) => `r${dep}`),
  }));
  const blocks = new Map<string, string[]>();
  for (const request of requests) {
    const ids = blocks.get(request.blockId) ?? [];
    ids.push(request.requestId);
    blocks.set(request.blockId, ids);
  }
  return {
    requests,
    blocks: [...blocks].map(([blockId, requestIds]) => ({ blockId, requestIds })),
  } as unknown as RunPlan;
}

/** The index a session holds of a test's plan: its pretty JSON, read back without a schema. */
export function planIndexOf(plan: RunPlan): PlanIndex {
  const bytes = Buffer.from(`${JSON.stringify(plan, null, 2)}\n`);
  return indexPlan(bytes, plan, 'plan.json', {
    request: (value) => value as RunPlan['requests'][number],
    block: (value) => value as RunPlan['blocks'][number],
  });
}

/**
 * A session over `plan` with only what the scheduler and the held state read: the plan's index,
 * an empty outcome table, no notebooks, and an empty held state (no world seeds, no systems).
 */
export function stubSession(
  plan: RunPlan,
  concurrency = 1,
): { readonly index: PlanIndex; readonly run: OpenedRun; readonly session: RunSession } {
  const index = planIndexOf(plan);
  const run = {
    plan: index,
    concurrency,
    manifest: { worldSeeds: [], systems: [], experiments: { memory: null } },
    systems: new Map(),
  } as unknown as OpenedRun;
  const session = {
    run,
    outcomes: new OutcomeTable(index.requestCount),
    notebooks: new Map(),
    instanceModels: new Map(),
    stop: null,
    fatal: null,
    emit: () => {},
    held: emptyHeldState(run, new Set()),
  } as unknown as RunSession;
  return { index, run, session };
}
