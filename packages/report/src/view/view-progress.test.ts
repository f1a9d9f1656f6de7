import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AttemptRecord } from '@chi/spec';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildFixtureRun } from '../__fixtures__/fixture-run';
import { tempDir } from '../__fixtures__/temp-dir';
import { readViewProgress } from './view-progress';

describe('readViewProgress', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let template: { before: AttemptRecord; after: AttemptRecord };
  beforeEach(async () => {
    dir = await tempDir('progress');
    await buildFixtureRun(dir.path, { seeds: [11] });
    const records = (await readFile(join(dir.path, 'attempts.jsonl'), 'utf8'))
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as AttemptRecord);
    template = {
      before: records.find((r) => r.phase === 'before_send') as AttemptRecord,
      after: records.find(
        (r) => r.phase === 'after_response' && r.result !== null,
      ) as AttemptRecord,
    };
  });
  afterEach(async () => dir.remove());

  /** A valid attempt record of `requestId` (attempt `<requestId>#1`). */
  const line = (requestId: string, phase: string, failure?: string, chargedUsd = 0) => {
    const base = phase === 'after_response' ? template.after : template.before;
    const result =
      failure === undefined || base.result === null
        ? null
        : { ...base.result, requestId, failure, chargedUsd };
    return JSON.stringify({
      ...base,
      requestId,
      attemptId: `${requestId}#1`,
      phase,
      result,
      ...(phase === 'abandoned' ? { reason: 'resumed' } : {}),
    });
  };

  async function writeRun(log: string, plannedIds: readonly string[]): Promise<void> {
    await writeFile(
      join(dir.path, 'plan.json'),
      JSON.stringify({ requests: plannedIds.map((requestId) => ({ requestId })) }),
    );
    await writeFile(join(dir.path, 'attempts.jsonl'), log);
  }

  const IDS = ['a', 'b', 'c', 'd', 'e', 'f'];
  const healthy = () => [
    line('a', 'before_send'),
    line('a', 'after_response', 'none', 0.25),
    line('b', 'before_send'),
    line('b', 'after_response', 'http_retryable', 0),
    line('c', 'before_send'),
    line('c', 'after_response', 'timeout', 0.5),
    line('d', 'before_send'),
    line('e', 'before_send'),
    line('e', 'abandoned'),
  ];

  it('counts requests by their latest attempt, spend and failures by class', async () => {
    await writeRun(`${healthy().join('\n')}\n`, IDS);
    const progress = await readViewProgress(dir.path);
    expect(progress).toMatchObject({
      state: 'completed', // the fixture run wrote a final status.json
      damage: null,
      totalRequests: 6,
      requests: { notStarted: 1, inFlight: 1, resolved: 1, failed: 2, abandoned: 1 },
      spentUsd: 0.75,
      offline: true,
      failuresByClass: { http_retryable: 1, timeout: 1 },
      attemptLines: 9,
    });
  });

  it('reads a half-written last line as a run in progress, not damage', async () => {
    await writeFile(join(dir.path, 'status.json'), JSON.stringify({ state: 'running' }));
    await writeRun(`${healthy().join('\n')}\n${line('f', 'before_send').slice(0, 40)}`, IDS);
    const progress = await readViewProgress(dir.path);
    expect(progress.state).toBe('in progress');
    expect(progress.damage).toBeNull();
    expect(progress.attemptLines).toBe(9);
  });

  it('names damage anywhere but the last line instead of skipping it', async () => {
    const damaged = healthy();
    damaged[3] = '{"requestId":"b","pha';
    await writeRun(`${damaged.join('\n')}\n`, IDS);
    const progress = await readViewProgress(dir.path);
    expect(progress.state).toBe('damaged');
    expect(progress.damage).toContain('attempts.jsonl');
    expect(progress.damage).toContain('line 4');
  });

  it('says in progress while the run has written no status yet', async () => {
    await writeFile(join(dir.path, 'status.json'), JSON.stringify({ state: 'running' }));
    await writeRun('', []);
    expect((await readViewProgress(dir.path)).state).toBe('in progress');
  });
});
