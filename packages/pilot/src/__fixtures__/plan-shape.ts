import type { RunPlan } from '@chi/spec';

/** One request of a plan shape: its block, and the earlier requests (by index) it depends on. */
export interface PlanShapeEntry {
  readonly block: number;
  readonly deps: readonly number[];
}

/**
 * A plan of `shape` for the scheduler's and the held state's property tests: request `r<i>` of
 * one system in block `b<block>` (world seed = block), depending on the earlier requests listed
 * (later or repeated indexes dropped). Only the fields those tests read are filled in.
 */
export function planOf(shape: readonly PlanShapeEntry[]): RunPlan {
  const requests = shape.map((entry, index) => ({
    requestId: `r${index}`,
    blockId: `b${entry.block}`,
    worldSeed: entry.block,
    systemId: 's',
    dependsOn: [...new Set(entry.deps.filter((dep) => dep < index))].map((dep) => `r${dep}`),
  }));
  return { requests } as unknown as RunPlan;
}
