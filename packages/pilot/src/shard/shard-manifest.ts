import type { RunManifest, RunPlan } from '@chi/spec';
import { type FrozenManifest, freezeManifest, planSha256 } from '../run-folder/manifest';
import { shardCeilingsUsd } from './shard-ceiling';
import { shardPlan, shardRequestCounts } from './shard-plan';
import type { ShardSpec } from './shard-spec';

/**
 * The ceiling a run folder's ledger and stops read: a shard's preregistered share
 * (`manifest.shard.ceilingUsd`), else the run's ceiling.
 */
export function runCeilingUsd(manifest: Pick<RunManifest, 'ceilingUsd' | 'shard'>): number {
  return manifest.shard?.ceilingUsd ?? manifest.ceilingUsd;
}

/** The plan hash a run folder's `plan.json` must match: its shard's part, else the whole plan's. */
export function folderPlanSha256(
  manifest: Pick<RunManifest, 'planSha256' | 'shard'>,
): string | undefined {
  return manifest.shard?.planSha256 ?? manifest.planSha256;
}

/** The unsharded run's manifest: a shard's manifest without its `shard` field. */
export function withoutShard(manifest: RunManifest): RunManifest {
  const { shard: _shard, ...rest } = manifest;
  return rest;
}

/**
 * A shard's frozen manifest and plan, from the unsharded run's frozen manifest and whole plan:
 * the same manifest with `shard` added (its index and count, its share of the ceiling, the hash
 * of its part of the plan) and its part of the plan ({@link shardPlan}).
 */
export function freezeShard(
  whole: FrozenManifest,
  plan: RunPlan,
  shard: ShardSpec,
): { frozen: FrozenManifest; plan: RunPlan } {
  const part = shardPlan(plan, shard);
  const shares = shardCeilingsUsd(whole.manifest.ceilingUsd, shardRequestCounts(plan, shard.count));
  const frozen = freezeManifest({
    ...whole.manifest,
    shard: {
      index: shard.index,
      count: shard.count,
      ceilingUsd: shares[shard.index] ?? 0,
      planSha256: planSha256(part),
    },
  });
  return { frozen, plan: part };
}
