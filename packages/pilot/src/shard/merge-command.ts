import { resolve } from 'node:path';
import type { MergeCommand, PilotCommand } from '../cli/cli-args';
import type { CliIo } from '../cli/cli-io';
import { createProgressRenderer } from '../cli/progress';
import { testClockFrom } from '../cli/test-clock';
import { finishRun } from '../pilot';
import { mergeShards } from './merge-shards';
import type { ShardSpec } from './shard-spec';

/**
 * The `runPilot` options of `chi pilot --shard i/n --created-at ISO`: the shard, the manifest's
 * creation time, and no release (a shard's part is not a run's result: `chi merge` writes it);
 * with `CHI_TEST_CLOCK` set (tests only), the frozen clock of the run and its models.
 */
export function shardRunOptions(
  command: Pick<PilotCommand, 'shard' | 'createdAt'>,
  env: Readonly<Record<string, string | undefined>> = {},
): {
  shard?: ShardSpec;
  createdAt?: Date;
  release?: false;
  now?: () => Date;
  modelClock?: () => Date;
} {
  const clock = testClockFrom(env);
  return {
    ...(clock === undefined ? {} : { now: clock, modelClock: clock }),
    ...(command.shard === undefined ? {} : { shard: command.shard, release: false }),
    ...(command.createdAt === undefined ? {} : { createdAt: command.createdAt }),
  };
}

/**
 * `chi merge SHARD_DIR... --out DIR`: merges the shards (`mergeShards`), writes the CHIS entries
 * and the release of the merged folder, prints the release folder last on stdout, and exits 0
 * when every block of the whole plan is complete, 3 otherwise (as `chi pilot`).
 */
export async function mergeCommand(command: MergeCommand, io: CliIo): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  const merged = await mergeShards({
    shardDirs: command.shardDirs.map((dir) => resolve(cwd, dir)),
    outDir: resolve(cwd, command.out),
  });
  io.stderr.write(
    `chi: merged ${command.shardDirs.length} shard(s) into ${merged.runDir}: ${merged.status.blocks.complete} complete block(s), ${merged.status.blocks.incomplete + merged.status.blocks.notStarted} not complete\n`,
  );
  const releaseDir = await finishRun(merged.runDir, { onEvent: createProgressRenderer(io.stderr) });
  io.stdout.write(`${releaseDir ?? merged.runDir}\n`);
  return merged.exitCode;
}
