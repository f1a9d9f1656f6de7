import { UsageError } from '../cli/usage-error';
import { parseShardSpec, type ShardSpec } from './shard-spec';

/** `--shard i/n` and `--created-at ISO` of `chi pilot`, read together. */
export interface ShardOptions {
  readonly shard?: ShardSpec;
  readonly createdAt?: Date;
}

/**
 * Reads `--shard` and `--created-at`: a shard needs the creation time every shard of the run is
 * given (their manifests must agree byte for byte apart from the shard field), and neither
 * applies to `--plan`.
 *
 * @throws UsageError naming the flag
 */
export function shardOptions(values: {
  readonly shard?: unknown;
  readonly 'created-at'?: unknown;
  readonly plan?: unknown;
}): ShardOptions {
  const shardText = values.shard as string | undefined;
  const createdText = values['created-at'] as string | undefined;
  if (shardText === undefined && createdText === undefined) return {};
  if (values.plan === true)
    throw new UsageError('chi pilot: --shard and --created-at apply to a run, not to --plan');
  if (shardText !== undefined && createdText === undefined)
    throw new UsageError(
      'chi pilot: --shard needs --created-at ISO-8601, the same instant for every shard of the run (their manifests must agree)',
    );
  let createdAt: Date | undefined;
  if (createdText !== undefined) {
    createdAt = new Date(createdText);
    if (!/^\d{4}-\d\d-\d\dT/.test(createdText) || Number.isNaN(createdAt.getTime()))
      throw new UsageError(
        `--created-at: expected an ISO-8601 instant such as 2026-12-01T00:00:00Z, found ${JSON.stringify(createdText)}`,
      );
  }
  let shard: ShardSpec | undefined;
  try {
    shard = shardText === undefined ? undefined : parseShardSpec(shardText);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return {
    ...(shard === undefined ? {} : { shard }),
    ...(createdAt === undefined ? {} : { createdAt }),
  };
}
