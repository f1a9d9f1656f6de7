import { fstatSync, mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChatModel } from '@chi/spec';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRun } from '../run-folder/run-create';
import { runPaths } from '../run-folder/run-folder';
import { createScriptedModel, scriptedSystemSpec } from '../scripted/scripted-systems';
import { defaultOfflineSettings } from '../settings';
import { executeRun } from './run-execute';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'chi-before-send-'));
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(root, { recursive: true, force: true });
});

/** Requests held in flight at once: the first K to reach the model wait until all K have. */
const K = 4;
const SYSTEMS = ['perfect', 'capacity-keeper', 'latest-wins', 'abstainer'] as const;

/**
 * Follows the attempt log's fdatasyncs (Linux: the handle's path from /proc/self/fd): the bytes of
 * the log that were in the file when a sync of it began are durable once that sync resolved.
 */
async function followLogSyncs(logPath: string): Promise<() => number> {
  let durableBytes = 0;
  const probe = await open(join(root, 'probe'), 'w');
  const prototype = Object.getPrototypeOf(probe) as { datasync: () => Promise<void> };
  await probe.close();
  const original = prototype.datasync;
  vi.spyOn(prototype, 'datasync').mockImplementation(async function (this: { fd: number }) {
    const isLog = readlinkSync(`/proc/self/fd/${this.fd}`) === logPath;
    const size = isLog ? fstatSync(this.fd).size : 0;
    await original.call(this);
    if (isLog) durableBytes = Math.max(durableBytes, size);
  });
  return () => durableBytes;
}

/**
 * Calls `onAnchorSync(records)` when a new `attempts.head.json` is fsynced (its temporary file,
 * found through /proc/self/fd), before that fsync runs: the anchor write is then in flight.
 */
async function followAnchorSyncs(onAnchorSync: (records: number) => void): Promise<void> {
  const probe = await open(join(root, 'probe-anchor'), 'w');
  const prototype = Object.getPrototypeOf(probe) as { sync: () => Promise<void> };
  await probe.close();
  const original = prototype.sync;
  vi.spyOn(prototype, 'sync').mockImplementation(async function (this: { fd: number }) {
    const path = readlinkSync(`/proc/self/fd/${this.fd}`);
    if (/attempts\.head\.json\.[^/]*\.tmp$/.test(path))
      onAnchorSync((JSON.parse(readFileSync(path, 'utf8')) as { records: number }).records);
    await original.call(this);
  });
}

/** The records `attempts.head.json` anchors now. */
function anchoredRecords(runDir: string): number {
  return (JSON.parse(readFileSync(runPaths(runDir).attemptsHead, 'utf8')) as { records: number })
    .records;
}

/** The offset just past request `requestId`'s before_send line in the log, or -1. */
function beforeSendEnd(logText: string, requestId: string): number {
  let offset = 0;
  for (const line of logText.split('\n')) {
    offset += Buffer.byteLength(line, 'utf8') + 1;
    if (line === '') continue;
    const record = JSON.parse(line) as { requestId: string; phase: string };
    if (record.requestId === requestId && record.phase === 'before_send') return offset;
  }
  return -1;
}

describe('before_send durability with requests in flight (issue 38)', () => {
  it.skipIf(process.platform !== 'linux')(
    'every request is sent only after its before_send record is fsynced, with K in flight',
    async () => {
      const settings = defaultOfflineSettings({
        systems: SYSTEMS.map((name) => scriptedSystemSpec(name)),
        replicates: 1,
        loads: [32],
        history: false,
        behavior: false,
      });
      const run = await createRun({ settings, runDir: join(root, 'run') });
      const logPath = runPaths(run.runDir).attempts;
      const durableBytes = await followLogSyncs(logPath);
      const problems: string[] = [];
      let waiting: (() => void)[] = [];
      let arrived = 0;
      let inFlight = 0;
      let mostInFlight = 0;
      const models = new Map<string, ChatModel>(
        run.frozen.manifest.systems.map((system) => {
          const inner = createScriptedModel(system.model.replace(/^scripted\//, ''));
          const model: ChatModel = {
            ...inner,
            async generate(request) {
              const end = beforeSendEnd(readFileSync(logPath, 'utf8'), request.requestId);
              if (end < 0 || end > durableBytes())
                problems.push(`${request.requestId} sent before its before_send was fsynced`);
              inFlight += 1;
              mostInFlight = Math.max(mostInFlight, inFlight);
              arrived += 1;
              if (arrived <= K) {
                const released = new Promise<void>((resolve) => waiting.push(resolve));
                if (arrived === K) for (const release of waiting.splice(0)) release();
                await released;
              }
              inFlight -= 1;
              return inner.generate(request);
            },
          };
          return [system.id, model];
        }),
      );
      const outcome = await executeRun({ runDir: run.runDir, models, concurrency: K });
      waiting = [];
      expect(outcome.state).toBe('completed');
      expect(mostInFlight).toBe(K);
      expect(arrived).toBe(run.plan.requests.length);
      expect(problems).toEqual([]);
    },
  );

  it.skipIf(process.platform !== 'linux')(
    'a request is sent once its before_send is durable, while the anchor covering it is still being written',
    async () => {
      const settings = defaultOfflineSettings({
        systems: [scriptedSystemSpec('perfect')],
        replicates: 1,
        loads: [32],
        history: false,
        behavior: false,
      });
      const run = await createRun({ settings, runDir: join(root, 'run') });
      const logPath = runPaths(run.runDir).attempts;
      const durableBytes = await followLogSyncs(logPath);
      const sent: string[] = [];
      // What was sent when each anchor past the session's first began its fsync.
      const sentAtAnchor: Array<{ records: number; sent: readonly string[]; onDisk: number }> = [];
      await followAnchorSyncs((records) => {
        if (records > 0)
          sentAtAnchor.push({ records, sent: [...sent], onDisk: anchoredRecords(run.runDir) });
      });
      const problems: string[] = [];
      const models = new Map<string, ChatModel>(
        run.frozen.manifest.systems.map((system) => {
          const inner = createScriptedModel(system.model.replace(/^scripted\//, ''));
          const model: ChatModel = {
            ...inner,
            generate(request) {
              const end = beforeSendEnd(readFileSync(logPath, 'utf8'), request.requestId);
              if (end < 0 || end > durableBytes())
                problems.push(`${request.requestId} sent before its before_send was fsynced`);
              sent.push(request.requestId);
              return inner.generate(request);
            },
          };
          return [system.id, model];
        }),
      );
      const outcome = await executeRun({ runDir: run.runDir, models, concurrency: 1 });
      expect(outcome.state).toBe('completed');
      expect(problems).toEqual([]);
      // The first request's before_send is record 1: its anchor was in flight (written, not yet
      // fsynced or renamed: the file still anchored none) when the request had been sent.
      const first = sentAtAnchor[0];
      expect(first).toMatchObject({ records: 1, onDisk: 0 });
      expect(first?.sent).toEqual([run.plan.requests[0]?.requestId]);
      // By the end of the session the anchor covers every record.
      const records = readFileSync(logPath, 'utf8').trim().split('\n').length;
      expect(anchoredRecords(run.runDir)).toBe(records);
    },
  );
});
