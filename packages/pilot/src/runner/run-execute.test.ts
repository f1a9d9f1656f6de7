import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMemoryObservation, observationsOf, type RunScores } from '@chi/analysis';
import { readRunFolder, scoreRun } from '@chi/report/internal';
import { openRunFolder } from '@chi/run';
import type { AttemptRecord, BlockStatus, ChatModel, RunStatus } from '@chi/spec';
import type { FailureLogEntry } from '@chi/spec/internal';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { failed, paidSystemSpec, scriptedWith } from '../__fixtures__/fake-models';
import { toLegacyLayout } from '../__fixtures__/legacy-layout';
import { modelsForManifest } from '../endpoints/system-models';
import type { PilotSettings } from '../pilot-settings';
import { createRun } from '../run-folder/run-create';
import { scriptedSystemSpec } from '../scripted/scripted-systems';
import { defaultOfflineSettings } from '../settings';
import { executeRun } from './run-execute';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'chi-exec-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const small = (overrides: Partial<PilotSettings> = {}) =>
  defaultOfflineSettings({
    systems: [scriptedSystemSpec('capacity-keeper'), scriptedSystemSpec('abstainer')],
    replicates: 1,
    loads: [32],
    ...overrides,
  });

const lines = <T>(path: string): T[] =>
  existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as T)
    : [];
const json = <T>(path: string): T => JSON.parse(readFileSync(path, 'utf8')) as T;

describe('executeRun', () => {
  it('sends every registered request once, logging before and after each, and completes every block', async () => {
    const run = await createRun({ settings: small(), runDir: join(root, 'run') });
    const outcome = await executeRun({
      runDir: run.runDir,
      models: modelsForManifest(run.frozen.manifest),
      concurrency: 3,
    });
    expect(outcome).toMatchObject({ state: 'completed', incompleteBlocks: 0 });
    const attempts = lines<AttemptRecord>(join(run.runDir, 'attempts.jsonl'));
    // 2 systems x (memory 2 + controls 2 + history 27 + behavior 2)
    expect(run.plan.requests).toHaveLength(66);
    expect(attempts).toHaveLength(2 * 66);
    const index = await openRunFolder(run.runDir).readRequestIndex();
    for (const request of run.plan.requests) {
      const own = attempts.filter((record) => record.requestId === request.requestId);
      expect(own.map((record) => record.phase)).toEqual(['before_send', 'after_response']);
      expect(own.every((record) => record.manifestSha256 === run.frozen.sha256)).toBe(true);
      expect(own[0]?.requestSha256).toBe(index.get(request.requestId)?.requestSha256);
    }
    // every before_send precedes its after_response in the file
    const seen = new Set<string>();
    for (const record of attempts) {
      if (record.phase === 'after_response') expect(seen.has(record.attemptId)).toBe(true);
      seen.add(record.attemptId);
    }
    const status = json<RunStatus>(join(run.runDir, 'status.json'));
    expect(status).toMatchObject({
      state: 'completed',
      requests: { total: 66, resolved: 66, notSent: 0 },
    });
    const notebook = json<{ bytes: number; capBytes: number }>(
      join(
        run.runDir,
        'notebooks',
        'capacity-keeper',
        'memory',
        `w${run.frozen.manifest.worldSeeds[0]}-n32.json`,
      ),
    );
    expect(notebook.capBytes).toBe(6000);
    expect(notebook.bytes).toBeLessThanOrEqual(6000);
    expect(
      existsSync(
        join(
          run.runDir,
          'notebooks',
          'abstainer',
          'history',
          `w${run.frozen.manifest.worldSeeds[0]}-A2-c4.json`,
        ),
      ),
    ).toBe(true);
  });

  it('keeps a model failure in a complete block, and continues a trajectory from the empty notebook', async () => {
    const run = await createRun({
      settings: small({ history: false, behavior: false }),
      runDir: join(root, 'run'),
    });
    const models = modelsForManifest(run.frozen.manifest);
    models.set(
      'capacity-keeper',
      scriptedWith('capacity-keeper', (request, result) =>
        request.requestId.endsWith('n32.encode') ? failed(result, 'timeout') : result,
      ),
    );
    const outcome = await executeRun({ runDir: run.runDir, models });
    expect(outcome).toMatchObject({ state: 'completed', incompleteBlocks: 0 });
    const attempts = lines<AttemptRecord>(join(run.runDir, 'attempts.jsonl'));
    const probe = attempts.find(
      (record) =>
        record.requestId.startsWith('capacity-keeper.memory') &&
        record.requestId.endsWith('probe.b0') &&
        record.phase === 'after_response',
    );
    expect(probe?.result?.text).toContain('"value":null');
    const failures = lines<FailureLogEntry>(join(run.runDir, 'failures.jsonl'));
    expect(failures).toEqual([expect.objectContaining({ category: 'model', failure: 'timeout' })]);
  });

  it('makes a block incomplete on an infrastructure failure and never sends what depended on it', async () => {
    const run = await createRun({
      settings: small({ controlsAtLoad: null, behavior: false }),
      runDir: join(root, 'run'),
    });
    const models = modelsForManifest(run.frozen.manifest);
    const calls: string[] = [];
    models.set(
      'capacity-keeper',
      scriptedWith(
        'capacity-keeper',
        (request, result) =>
          request.requestId.endsWith('A.c2.update') || request.requestId.endsWith('.encode')
            ? failed(result, 'http_retryable')
            : result,
        { calls },
      ),
    );
    const outcome = await executeRun({ runDir: run.runDir, models });
    expect(outcome.state).toBe('completed');
    expect(calls.some((id) => id.endsWith('probe.b0'))).toBe(false);
    expect(calls.some((id) => id.endsWith('.A.c3.update') || id.endsWith('.A.c2.probe'))).toBe(
      false,
    );
    expect(calls.some((id) => id.endsWith('.A.c1.probe'))).toBe(true);
    const blocks = json<BlockStatus[]>(join(run.runDir, 'blocks.json'));
    expect(blocks.map((block) => block.status)).toEqual(['incomplete', 'incomplete']);
    expect(blocks[1]?.reasons).toEqual([
      '1 x infrastructure failure: http_retryable',
      '5 x not sent: a request it depends on produced no notebook',
    ]);
    const categories = lines<FailureLogEntry>(join(run.runDir, 'failures.jsonl')).map(
      (entry) => entry.category,
    );
    expect(categories.filter((category) => category === 'dependency')).toHaveLength(6);
  });

  it('stops at an account failure (HTTP 402: no credits) and does not count it against the model', async () => {
    const run = await createRun({ settings: small({ concurrency: 1 }), runDir: join(root, 'run') });
    const models = modelsForManifest(run.frozen.manifest);
    models.set(
      'abstainer',
      scriptedWith('abstainer', (_request, result) => ({
        ...failed(result, 'http_fatal'),
        tries: [
          {
            tryIndex: 0,
            startedAt: result.startedAt,
            status: 402,
            failure: 'http_fatal',
            detail: 'insufficient credits',
            waitMs: null,
            waitSource: null,
          },
        ],
      })),
    );
    const outcome = await executeRun({ runDir: run.runDir, models, concurrency: 1 });
    expect(outcome).toMatchObject({ state: 'stopped', stop: { kind: 'account' } });
    const blocks = json<BlockStatus[]>(join(run.runDir, 'blocks.json'));
    expect(blocks[0]?.status).toBe('incomplete');
    expect(blocks[0]?.reasons[0]).toBe('1 x account failure: HTTP 402');
    expect(lines<FailureLogEntry>(join(run.runDir, 'failures.jsonl'))[0]).toMatchObject({
      category: 'infrastructure',
      failure: 'http_fatal',
    });
  });

  it('stops sending at a budget refusal and says so in the status', async () => {
    const run = await createRun({ settings: small({ concurrency: 1 }), runDir: join(root, 'run') });
    const models = modelsForManifest(run.frozen.manifest);
    let sent = 0;
    models.set(
      'abstainer',
      scriptedWith('abstainer', (_request, result) =>
        ++sent === 3 ? { ...failed(result, 'budget_refused'), tries: [] } : result,
      ),
    );
    const outcome = await executeRun({ runDir: run.runDir, models, concurrency: 1 });
    expect(outcome.state).toBe('stopped');
    expect(outcome.stop?.kind).toBe('ceiling');
    const status = json<RunStatus>(join(run.runDir, 'status.json'));
    expect(status.state).toBe('stopped');
    expect(status.requests.resolved).toBeLessThan(10);
    const blocks = json<BlockStatus[]>(join(run.runDir, 'blocks.json'));
    expect(blocks.filter((block) => block.status === 'not_started').length).toBeGreaterThan(0);
    expect(
      blocks.some((block) => block.reasons.some((reason) => reason.includes('ceiling stop'))),
    ).toBe(true);
  });

  it('on resume never re-sends a possibly-sent paid request, and re-sends a scripted one', async () => {
    const settings = small({
      systems: [paidSystemSpec('paid'), scriptedSystemSpec('capacity-keeper')],
      history: false,
      behavior: false,
      controlsAtLoad: null,
    });
    const run = await createRun({ settings, runDir: join(root, 'run') });
    const crashing = new Map<string, ChatModel>([
      [
        'paid',
        scriptedWith(
          'capacity-keeper',
          (request, result) => (request.requestId.endsWith('encode') ? 'throw' : result),
          { evidenceClass: 'live_model' },
        ),
      ],
      [
        'capacity-keeper',
        scriptedWith('capacity-keeper', (request, result) =>
          request.requestId.endsWith('encode') ? 'throw' : result,
        ),
      ],
    ]);
    await expect(
      executeRun({ runDir: run.runDir, models: crashing, concurrency: 2 }),
    ).rejects.toThrow(/simulated crash/);
    const calls: string[] = [];
    const healthy = new Map<string, ChatModel>([
      [
        'paid',
        scriptedWith('capacity-keeper', (_request, result) => result, {
          evidenceClass: 'live_model',
          calls,
        }),
      ],
      ['capacity-keeper', scriptedWith('capacity-keeper', (_request, result) => result, { calls })],
    ]);
    const outcome = await executeRun({ runDir: run.runDir, models: healthy });
    expect(calls).not.toContain(
      'paid.memory.' + `w${run.frozen.manifest.worldSeeds[0]}.n32.encode`,
    );
    expect(calls.filter((id) => id.startsWith('capacity-keeper.'))).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/encode$/),
        expect.stringMatching(/probe\.b0$/),
      ]),
    );
    const attempts = lines<AttemptRecord>(join(run.runDir, 'attempts.jsonl'));
    const abandoned = attempts.filter((record) => record.phase === 'abandoned');
    expect(abandoned.map((record) => record.systemId).sort()).toEqual(['capacity-keeper', 'paid']);
    expect(
      attempts
        .filter(
          (record) =>
            record.requestId.startsWith('capacity-keeper') && record.requestId.endsWith('encode'),
        )
        .map((record) => `${record.attemptId.split('#')[1]} ${record.phase}`),
    ).toEqual(['1 before_send', '1 abandoned', '2 before_send', '2 after_response']);
    expect(outcome.incompleteBlocks).toBe(1);
    const blocks = json<BlockStatus[]>(join(run.runDir, 'blocks.json'));
    expect(blocks[0]?.reasons).toContain(
      '1 x uncertain_attempt: possibly sent before an interruption, never re-sent',
    );
    const status = json<RunStatus>(join(run.runDir, 'status.json'));
    expect(status.resumes).toBe(1);
    expect(status.requests.abandoned).toBe(1);
  });

  it('refuses a run folder whose manifest was edited after freezing', async () => {
    const run = await createRun({ settings: small(), runDir: join(root, 'run') });
    const path = join(run.runDir, 'manifest.json');
    writeFileSync(path, readFileSync(path, 'utf8').replace('"ceilingUsd":0', '"ceilingUsd":1000'));
    await expect(
      executeRun({ runDir: run.runDir, models: modelsForManifest(run.frozen.manifest) }),
    ).rejects.toThrow(/hashes to .* but manifest.sha256 records/);
  });

  it('refuses a model whose evidence class differs from the registered one', async () => {
    const run = await createRun({ settings: small(), runDir: join(root, 'run') });
    const models = modelsForManifest(run.frozen.manifest);
    models.set(
      'abstainer',
      scriptedWith('abstainer', (_request, result) => result, { evidenceClass: 'live_model' }),
    );
    await expect(executeRun({ runDir: run.runDir, models })).rejects.toThrow(
      /registered as scripted_baseline but its model reports live_model/,
    );
  });

  it('skips a torn final attempt line left by a crash mid-append', async () => {
    const run = await createRun({
      settings: small({ history: false, behavior: false }),
      runDir: join(root, 'run'),
    });
    const models = modelsForManifest(run.frozen.manifest);
    await executeRun({ runDir: run.runDir, models });
    const path = join(run.runDir, 'attempts.jsonl');
    const before = readFileSync(path, 'utf8');
    appendFileSync(path, '{"kind":"attempt","manifestSha');
    const outcome = await executeRun({ runDir: run.runDir, models });
    expect(outcome.state).toBe('completed');
    expect(readFileSync(path, 'utf8')).toBe(before);
  });

  it('stops dispatching on an interruption, lets requests in flight finish, and resumes to the same replies', async () => {
    const run = await createRun({ settings: small(), runDir: join(root, 'run') });
    const models = modelsForManifest(run.frozen.manifest);
    const controller = new AbortController();
    const interrupted = await executeRun({
      runDir: run.runDir,
      models,
      concurrency: 2,
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === 'request-finished' && event.progress.done === 10) controller.abort();
      },
    });
    expect(interrupted.state).toBe('stopped');
    expect(interrupted.stop?.kind).toBe('interrupted');
    const attempts = lines<AttemptRecord>(join(run.runDir, 'attempts.jsonl'));
    // every request that was sent also has its result: nothing was cut off
    expect(attempts.filter((record) => record.phase === 'before_send').length).toBe(
      attempts.filter((record) => record.phase === 'after_response').length,
    );
    expect(interrupted.progress.done).toBeLessThan(20);
    const resumed = await executeRun({ runDir: run.runDir, models });
    expect(resumed).toMatchObject({ state: 'completed', incompleteBlocks: 0 });
    const reference = await createRun({ settings: small(), runDir: join(root, 'reference') });
    await executeRun({
      runDir: reference.runDir,
      models: modelsForManifest(reference.frozen.manifest),
    });
    const texts = (dir: string) =>
      new Map(
        lines<AttemptRecord>(join(dir, 'attempts.jsonl'))
          .filter((record) => record.phase === 'after_response')
          .map((record) => [record.requestId, record.result?.text]),
      );
    expect(texts(run.runDir)).toEqual(texts(reference.runDir));
  });

  it('resumes a layout-0.1 folder in its own layout and scores it like an uninterrupted run', async () => {
    const run = await createRun({ settings: small(), runDir: join(root, 'legacy') });
    const models = modelsForManifest(run.frozen.manifest);
    const controller = new AbortController();
    await executeRun({
      runDir: run.runDir,
      models,
      concurrency: 1,
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === 'request-finished' && event.progress.done === 10) controller.abort();
      },
    });
    await toLegacyLayout(run.runDir);
    const resumed = await executeRun({ runDir: run.runDir, models });
    expect(resumed).toMatchObject({ state: 'completed', incompleteBlocks: 0 });
    // the rest of the requests went to requests/<id>.json: no payloads, no index beside them
    expect(existsSync(join(run.runDir, 'requests.jsonl'))).toBe(false);
    expect(existsSync(join(run.runDir, 'payloads'))).toBe(false);
    expect(readdirSync(join(run.runDir, 'requests'))).toHaveLength(run.plan.requests.length);
    const reference = await createRun({ settings: small(), runDir: join(root, 'reference-0.2') });
    await executeRun({
      runDir: reference.runDir,
      models: modelsForManifest(reference.frozen.manifest),
    });
    const legacyRecords = await readRunFolder(run.runDir);
    expect(legacyRecords.requestLayout).toBe('0.1');
    const memoryOf = (scores: RunScores) => observationsOf(scores, 'memory', isMemoryObservation);
    expect(memoryOf(scoreRun(legacyRecords))).toEqual(
      memoryOf(scoreRun(await readRunFolder(reference.runDir))),
    );
  });
});
