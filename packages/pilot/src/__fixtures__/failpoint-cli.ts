import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AttemptRecord } from '@chi/spec';
import { nodeArgsFor } from '../../../../tooling/vitest/child-bundle';
import { startNode } from '../../../../tooling/vitest/child-process';

const CLI = fileURLToPath(new URL('../cli.ts', import.meta.url));

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
  const child = startNode([...(await nodeArgsFor(CLI)), ...args], {
    env: { CHI_FAILPOINT: failpoint ?? '', CHI_FAILPOINT_MARKER: marker },
    stdout: 'ignore',
  });
  if (failpoint === undefined) {
    const exit = await child.exit;
    return typeof exit === 'number' ? exit : -1;
  }
  // waits for the event "the child is at the failpoint" (its exit first fails the test)
  await child.untilFile(marker);
  await child.stop('SIGKILL');
  return 'killed';
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
