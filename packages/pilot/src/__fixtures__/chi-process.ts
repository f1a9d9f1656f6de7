import { fileURLToPath } from 'node:url';
import { nodeArgsFor } from '../../../../tooling/vitest/child-bundle';
import { runNode } from '../../../../tooling/vitest/child-process';

const CLI = fileURLToPath(new URL('../cli.ts', import.meta.url));

/** What a `chi` process left: its exit code and everything it wrote. */
export interface ChiProcessResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * `chi ARGS` as a process of its own (the run's bundle of the CLI's sources, `nodeArgsFor`, as the
 * other process tests run it), with `env` over this process's environment, no provider key, no
 * colour (`runNode`). For tests whose point is separate processes (shards on other machines);
 * everything else calls `runCli`.
 */
export async function chiProcess(
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<ChiProcessResult> {
  const { exit, stdout, stderr } = await runNode([...(await nodeArgsFor(CLI)), ...args], { env });
  return { code: typeof exit === 'number' ? exit : null, stdout, stderr };
}
