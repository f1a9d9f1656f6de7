import { resolve } from 'node:path';
import { canonicalJson, sha256Hex } from '@chi/run';
import type { RunShard } from '@chi/spec';
import { UsageError } from '../cli/usage-error';
import { type FrozenManifest, freezeManifest, readFrozenManifest } from '../run-folder/manifest';
import { withoutShard } from './shard-manifest';

/** A shard's run folder as `chi merge` reads it. */
export interface ShardFolder {
  readonly dir: string;
  readonly frozen: FrozenManifest;
  readonly shard: RunShard;
}

/** The shards of one run, checked to cover its plan exactly once, in index order. */
export interface ShardSet {
  /** The unsharded run's frozen manifest (every shard's without its `shard` field). */
  readonly whole: FrozenManifest;
  readonly shards: readonly ShardFolder[];
}

/**
 * Reads a shard's run folder: its frozen manifest (hash checked: a damaged folder is exit 5) and
 * its `shard` field.
 *
 * @throws UsageError naming the folder when it is not a shard's (no `manifest.shard`)
 */
export async function readShardFolder(dir: string): Promise<ShardFolder> {
  const absolute = resolve(dir);
  const frozen = await readFrozenManifest(absolute);
  const shard = frozen.manifest.shard;
  if (shard === undefined)
    throw new UsageError(
      `chi merge: ${absolute} is not a shard (its manifest has no shard field; run shards with chi pilot --shard i/n)`,
    );
  return { dir: absolute, frozen, shard };
}

/**
 * Checks that `folders` are the shards of one frozen manifest and cover its plan exactly once:
 * every manifest without its `shard` field is the same (byte for byte in canonical form), every
 * shard has the same count, no index appears twice and none is missing. Each shard's part of the
 * plan is checked against the whole plan by the merge (`mergeShards`).
 *
 * @throws UsageError naming the offending shard folder (exit 2)
 */
export function checkShardSet(folders: readonly ShardFolder[]): ShardSet {
  const [first] = folders;
  if (first === undefined) throw new UsageError('chi merge: expected at least one shard folder');
  const whole = freezeManifest(withoutShard(first.frozen.manifest));
  for (const folder of folders.slice(1)) {
    const text = canonicalJson(withoutShard(folder.frozen.manifest));
    if (text !== whole.text || folder.shard.count !== first.shard.count)
      throw new UsageError(
        `chi merge: ${folder.dir} is a shard of another run: its manifest without the shard field hashes to ${sha256Hex(text)} with ${folder.shard.count} shard(s), ${first.dir}'s to ${whole.sha256} with ${first.shard.count}`,
      );
  }
  const byIndex = new Map<number, ShardFolder>();
  for (const folder of folders) {
    const twin = byIndex.get(folder.shard.index);
    if (twin !== undefined)
      throw new UsageError(
        `chi merge: shard ${folder.shard.index}/${folder.shard.count} is given twice: ${twin.dir} and ${folder.dir}`,
      );
    byIndex.set(folder.shard.index, folder);
  }
  const count = first.shard.count;
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !byIndex.has(i));
  if (missing.length > 0)
    throw new UsageError(
      `chi merge: shard ${missing.map((i) => `${i}/${count}`).join(', ')} missing: given ${folders.map((f) => `${f.dir} (${f.shard.index}/${count})`).join(', ')}`,
    );
  const shards = [...byIndex.values()].sort((a, b) => a.shard.index - b.shard.index);
  return { whole, shards };
}
