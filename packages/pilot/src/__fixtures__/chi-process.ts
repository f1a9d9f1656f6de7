import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { nodeArgsFor } from '../../../../tooling/vitest/child-bundle';

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
 * colour. For tests whose point is separate processes (shards on other machines); everything else
 * calls `runCli`.
 */
export async function chiProcess(
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<ChiProcessResult> {
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    ...env,
    NO_COLOR: '1',
  };
  delete childEnv.OPENROUTER_API_KEY;
  delete childEnv.OPENAI_API_KEY;
  const child = spawn(process.execPath, [...(await nodeArgsFor(CLI)), ...args], {
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}
