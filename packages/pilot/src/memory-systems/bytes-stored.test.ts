import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyRelease } from '@chi/report';
import type { AttemptRecord, PlannedRequest, RunPlan } from '@chi/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPilot } from '../pilot';
import { createScriptedModel, scriptedSystemSpec } from '../scripted/scripted-systems';
import { defaultOfflineSettings } from '../settings';
import { instanceScope, requestInstance } from './instance-identity';
import {
  createMemoryReferenceModel,
  type MemoryReferenceModel,
  memoryReferenceSpec,
} from './reference-systems';
import { DEFAULT_WINDOW_RECORDS } from './window-store';

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'chi-bytes-stored-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, 'utf8')) as T;

describe('bytes stored by a system that keeps its own memory', () => {
  let runDir: string;
  let releaseDir: string;
  let window: MemoryReferenceModel;
  let attempts: AttemptRecord[];
  let plan: RunPlan;
  let manifestSha256: string;
  beforeAll(async () => {
    runDir = join(root, 'run');
    window = createMemoryReferenceModel('window');
    const outcome = await runPilot({
      settings: defaultOfflineSettings({
        systems: [
          memoryReferenceSpec('window'),
          memoryReferenceSpec('leaky-store'),
          scriptedSystemSpec('perfect'),
        ],
        replicates: 2,
        loads: [32, 128],
        history: false,
        behavior: false,
        resamples: 50,
      }),
      runDir,
      models: new Map([
        ['window', window],
        ['leaky-store', createMemoryReferenceModel('leaky-store')],
        ['perfect', createScriptedModel('perfect')],
      ]),
    });
    expect(outcome.execution.state).toBe('completed');
    releaseDir = outcome.releaseDir as string;
    attempts = readFileSync(join(runDir, 'attempts.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as AttemptRecord);
    plan = readJson<RunPlan>(join(runDir, 'plan.json'));
    manifestSha256 = attempts[0]?.manifestSha256 as string;
  }, 300_000);

  it("records each instance's export at the end of its trajectory, equal to what the system holds", () => {
    const recorded = attempts.filter((record) => record.bytesStored !== undefined);
    // only on answers, only for the system that declares instance control
    for (const record of recorded) {
      expect(record.phase).toBe('after_response');
      expect(record.systemId).toBe('window');
    }
    const windowRequests = plan.requests.filter((request) => request.systemId === 'window');
    const lastOfInstance = new Map<string, PlannedRequest>();
    for (const request of windowRequests) lastOfInstance.set(instanceScope(request), request);
    // once per instance (2 worlds x 2 loads, 2 worlds x the blank and oracle controls): its last session
    expect(recorded.map((record) => record.requestId).sort()).toEqual(
      [...lastOfInstance.values()].map((request) => request.requestId).sort(),
    );
    const held = window.instances();
    for (const request of lastOfInstance.values()) {
      const record = recorded.find((candidate) => candidate.requestId === request.requestId);
      const { instanceId } = requestInstance(request, manifestSha256);
      // the system's own count; an instance never written (the controls) stores nothing
      expect(record?.bytesStored, instanceId).toBe(held.get(instanceId)?.bytes ?? 0);
    }
    // the window keeps at most K records: at N = 128 (320 records) exactly K
    const big = [...lastOfInstance.values()].find(
      (r) => r.load === 128 && r.condition === 'notebook',
    );
    expect(
      held.get(requestInstance(big as PlannedRequest, manifestSha256).instanceId)?.records,
    ).toBe(DEFAULT_WINDOW_RECORDS);
  });

  it('publishes them per experiment, load and condition, and the report says so per system', () => {
    const data = readJson<{
      bytesStored?: {
        systemId: string;
        experiment: string;
        load: number;
        condition: string;
        instances: number;
        bytesStored: { mean: number };
      }[];
    }>(join(releaseDir, 'chart-data', 'chart-data.json'));
    const rows = data.bytesStored ?? [];
    expect(rows.map((row) => [row.experiment, row.load, row.condition, row.instances])).toEqual([
      ['controls', 32, 'blank', 2],
      ['controls', 32, 'oracle', 2],
      ['memory', 32, 'notebook', 2],
      ['memory', 128, 'notebook', 2],
    ]);
    expect(rows.every((row) => row.systemId === 'window')).toBe(true);
    const memory = (load: number) =>
      rows.find((row) => row.experiment === 'memory' && row.load === load)?.bytesStored.mean ?? 0;
    expect(memory(32)).toBeGreaterThan(0);
    expect(memory(128)).toBeGreaterThan(memory(32));
    const report = readFileSync(join(releaseDir, 'report.md'), 'utf8');
    expect(report).toContain(
      "Bytes stored by window (its own count, from its instance-control export at the end of each instance's trajectory): controls N = 32 (blank): 0 B in each of 2 instances;",
    );
    expect(report).toContain('Bytes stored: not reported by the system for leaky-store');
  });

  it('chi verify recomputes them from the attempt log', async () => {
    expect((await verifyRelease(releaseDir)).mismatches).toEqual([]);
  });
});
