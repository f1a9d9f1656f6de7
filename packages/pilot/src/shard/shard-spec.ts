import { InvalidArgumentError } from '@chi/spec';

/** Which shard of how many (1-based: shard 1/3 is the first of three). */
export interface ShardSpec {
  readonly index: number;
  readonly count: number;
}

/**
 * Parses `i/n` (`--shard 2/3`): 1 <= i <= n, both decimal integers. A Kubernetes Indexed Job's
 * `JOB_COMPLETION_INDEX` is 0-based: pass `$((JOB_COMPLETION_INDEX + 1))/n` (docs/protocol.md).
 *
 * @throws InvalidArgumentError naming `--shard` for anything else
 */
export function parseShardSpec(text: string): ShardSpec {
  const match = /^(\d{1,6})\/(\d{1,6})$/.exec(text.trim());
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (match === null || count < 1 || index < 1 || index > count)
    throw new InvalidArgumentError(
      '--shard',
      `expected i/n with 1 <= i <= n (for example 2/3), found ${JSON.stringify(text)}`,
    );
  return { index, count };
}

/** `2/3`: how a shard is named in messages and folder listings. */
export function shardLabel(shard: ShardSpec): string {
  return `${shard.index}/${shard.count}`;
}
