import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AttemptRecord } from '@chi/spec';
import { nodeArgsFor } from '../../../../tooling/vitest/child-bundle';

const CLI = fileURLToPath(new URL('../cli.ts', import.meta.url));

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/**
 * Runs `chi` (the run's bundle of its sources, `nodeArgsFor`) in a child process. With a failpoint,
 * the child stops at exactly that point (it writes a marker file in `markerDir` and waits), is
 * killed there with SIGKILL, and this resolves to 'killed'; reaching no failpoint, it resolves to
 * the exit code. A child that exits before its failpoint fails the test with its stderr.
 */
export async function chiAtFailpoint(
  markerDir: string,
  args: readonly string[],
  failpoint?: string,
): Promise<number | 'killed'> {
  const marker = join(markerDir, `marker-${Math.random().toString(16).slice(2)}`);
  const child = spawn(process.execPath, [...(await nodeArgsFor(CLI)), ...args], {
    env: {
      ...process.env,
      CHI_FAILPOINT: failpoint ?? '',
      CHI_FAILPOINT_MARKER: marker,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const done = exited(child);
  if (failpoint === undefined) return (await done) ?? -1;
  // Waits for the event "the child is at the failpoint" (or its exit, which fails the test).
  for (;;) {
    const state = await Promise.race([
      done.then(() => 'exit' as const),
      new Promise<'tick'>((resolve) => setTimeout(() => resolve('tick'), 10)),
    ]);
    if (state === 'exit')
      throw new Error(`chi ${args.join(' ')} exited before reaching ${failpoint}: ${stderr}`);
    if (existsSync(marker)) {
      child.kill('SIGKILL');
      await done;
      return 'killed';
    }
  }
}

/** The attempt records of a run folder's log, in file order. */
export function attemptRecords(runDir: string): AttemptRecord[] {
  return readFileSync(join(runDir, 'attempts.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as AttemptRecord);
}

/** How many `after_response` records each answered request has in a run folder's log. */
export function answersPerRequest(runDir: string): number[] {
  const answered = new Map<string, number>();
  for (const record of attemptRecords(runDir))
    if (record.phase === 'after_response')
      answered.set(record.requestId, (answered.get(record.requestId) ?? 0) + 1);
  return [...answered.values()];
}
