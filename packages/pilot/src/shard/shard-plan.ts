import { InvalidArgumentError, type PlannedRequest, type RunPlan } from '@chi/spec';
import { type ShardSpec, shardLabel } from './shard-spec';

/** The unit a shard runs whole: one system's requests in every block of one world. */
function unitKey(request: Pick<PlannedRequest, 'worldSeed' | 'systemId'>): string {
  return `${request.worldSeed}\u0000${request.systemId}`;
}

/**
 * The (world seed, system) units of a plan in their order of first appearance (world by world,
 * systems in manifest order within a world), each with its position: the order shards partition.
 */
export function planUnits(plan: RunPlan): Map<string, number> {
  const units = new Map<string, number>();
  for (const request of plan.requests) {
    const key = unitKey(request);
    if (!units.has(key)) units.set(key, units.size);
  }
  return units;
}

/** The 1-based shard of `count` that runs the unit at `position` (round robin). */
export function shardOfUnit(position: number, count: number): number {
  return (position % count) + 1;
}

/**
 * The part of `plan` shard `shard` runs (docs/protocol.md, "Shards"): the (world seed, system)
 * units at positions p with p mod n = i - 1, every request of each, in the plan's order; each
 * block keeps the requests of its units (a block without any is left out). Blocks stay whole per
 * system: a block's requests of one system all go to one shard, so nothing inside a system's
 * trajectory crosses shards. The parts of 1..n partition the plan exactly.
 *
 * @throws InvalidArgumentError naming `--shard` when the shard has no unit (more shards than units)
 */
export function shardPlan(plan: RunPlan, shard: ShardSpec): RunPlan {
  const units = planUnits(plan);
  if (shard.index > units.size)
    throw new InvalidArgumentError(
      '--shard',
      `shard ${shardLabel(shard)} would run nothing: the plan has ${units.size} (world seed, system) unit(s); use at most ${units.size} shards`,
    );
  const mine = (request: PlannedRequest) =>
    shardOfUnit(units.get(unitKey(request)) as number, shard.count) === shard.index;
  const requests = plan.requests.filter(mine);
  const kept = new Set(requests.map((request) => request.requestId));
  const blocks = plan.blocks.flatMap((block) => {
    const requestIds = block.requestIds.filter((id) => kept.has(id));
    return requestIds.length === 0 ? [] : [{ ...block, requestIds }];
  });
  return { kind: 'run-plan', schemaVersion: 1, requests, blocks };
}

/** The number of requests of every shard of `count`, by 1-based index (index 0 unused). */
export function shardRequestCounts(plan: RunPlan, count: number): number[] {
  const units = planUnits(plan);
  const counts = new Array<number>(count + 1).fill(0);
  for (const request of plan.requests) {
    const shard = shardOfUnit(units.get(unitKey(request)) as number, count);
    counts[shard] = (counts[shard] ?? 0) + 1;
  }
  return counts;
}
