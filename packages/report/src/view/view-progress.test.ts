import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../__fixtures__/temp-dir';
import { readViewProgress } from './view-progress';

describe('readViewProgress', () => {
  let dir: { path: string; remove: () => Promise<void> };
  beforeEach(async () => {
    dir = await tempDir('progress');
  });
  afterEach(async () => dir.remove());

  const line = (requestId: string, phase: string, failure?: string, chargedUsd = 0) =>
    JSON.stringify({
      requestId,
      phase,
      result: failure === undefined ? null : { failure, chargedUsd },
    });

  it('counts requests by their latest line, spend and failures by class; skips a torn tail', async () => {
    await writeFile(
      join(dir.path, 'plan.json'),
      JSON.stringify({
        requests: ['a', 'b', 'c', 'd', 'e', 'f'].map((requestId) => ({ requestId })),
      }),
    );
    await writeFile(join(dir.path, 'manifest.json'), JSON.stringify({ ceilingUsd: 5 }));
    await writeFile(
      join(dir.path, 'attempts.jsonl'),
      [
        line('a', 'before_send'),
        line('a', 'after_response', 'none', 0.25),
        line('b', 'before_send'),
        line('b', 'after_response', 'http_retryable', 0),
        line('c', 'before_send'),
        line('c', 'after_response', 'timeout', 0.5),
        line('d', 'before_send'),
        line('e', 'abandoned'),
        '{"requestId":"f","pha', // torn: the run is writing it
      ].join('\n'),
    );
    expect(await readViewProgress(dir.path)).toEqual({
      state: 'running',
      totalRequests: 6,
      requests: { notStarted: 1, inFlight: 1, resolved: 1, failed: 2, abandoned: 1 },
      spentUsd: 0.75,
      ceilingUsd: 5,
      failuresByClass: { http_retryable: 1, timeout: 1 },
      attemptLines: 8,
    });
  });

  it('reads the state from status.json when the run wrote one', async () => {
    await writeFile(join(dir.path, 'plan.json'), JSON.stringify({ requests: [] }));
    await writeFile(join(dir.path, 'status.json'), JSON.stringify({ state: 'stopped' }));
    expect((await readViewProgress(dir.path)).state).toBe('stopped');
  });
});
