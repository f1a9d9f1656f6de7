import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AttemptRecord, ChatModel, ChatRequest } from '@chi/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryScoresOf } from '../__fixtures__/memory-scores';
import { servedScriptedModels, withServedDeclarations } from '../endpoints/endpoint-models';
import { type ScriptedServer, serveScriptedSystem } from '../endpoints/serve';
import { modelsForManifest } from '../endpoints/system-models';
import type { PilotSettings } from '../pilot-settings';
import { createRun } from '../run-folder/run-create';
import { executeRun } from '../runner/run-execute';
import { defaultOfflineSettings, openAiCompatibleSystemSpec } from '../settings';
import { createMemoryReferenceModel, memoryReferenceSpec } from './reference-systems';

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'chi-memsys-resume-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const common: Partial<PilotSettings> = {
  replicates: 1,
  loads: [32, 64],
  controlsAtLoad: null,
  history: false,
  behavior: false,
};

/**
 * A model that sends `killAt` to `inner` (so it reaches the system) and then dies before its
 * result is recorded: the attempt log keeps a `before_send` without an `after_response`, as after
 * a kill while the request was in flight.
 */
function dyingAfter(inner: ChatModel, killAt: string): ChatModel {
  return {
    ...inner,
    async generate(request: ChatRequest) {
      const result = await inner.generate(request);
      if (request.requestId === killAt) throw new Error('killed while in flight');
      return result;
    },
  };
}

function attempts(runDir: string): AttemptRecord[] {
  return readFileSync(join(runDir, 'attempts.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as AttemptRecord);
}

describe('resume of a system that keeps its own memory', () => {
  it('in process: rebuilds the memory from the resolved sessions, re-sends the open one once, scores as uninterrupted', async () => {
    const settings = defaultOfflineSettings({
      ...common,
      systems: [memoryReferenceSpec('window')],
    });
    const reference = await createRun({ settings, runDir: join(root, 'whole') });
    await executeRun({
      runDir: reference.runDir,
      models: new Map([['window', createMemoryReferenceModel('window')]]),
    });
    const run = await createRun({ settings, runDir: join(root, 'killed') });
    const seed = run.frozen.manifest.worldSeeds[0];
    const killAt = `window.memory.w${seed}.n64.probe.b0`;
    await expect(
      executeRun({
        runDir: run.runDir,
        models: new Map([['window', dyingAfter(createMemoryReferenceModel('window'), killAt)]]),
      }),
    ).rejects.toThrow(/killed/);
    // a new process: a new model whose memory is empty
    const resumed = await executeRun({
      runDir: run.runDir,
      models: new Map([['window', createMemoryReferenceModel('window')]]),
    });
    expect(resumed.state).toBe('completed');
    const abandoned = attempts(run.runDir).filter((record) => record.phase === 'abandoned');
    expect(abandoned.map((record) => record.requestId)).toEqual([killAt]);
    expect(JSON.stringify(abandoned[0])).toContain('rebuilt from the resolved sessions only');
    // without the rebuild the re-sent probe would ask an empty memory and score 0
    expect(memoryScoresOf(run.runDir)).toEqual(memoryScoresOf(reference.runDir));
  }, 120_000);

  describe('over HTTP', () => {
    let server: ScriptedServer;
    beforeAll(async () => {
      server = await serveScriptedSystem({ system: 'window' });
    });
    afterAll(async () => server.close());

    it('never sends a possibly-sent session again: abandoned with the reason, block incomplete', async () => {
      const declared = servedScriptedModels(await (await fetch(`${server.baseUrl}/models`)).json());
      const systems = withServedDeclarations(
        [
          openAiCompatibleSystemSpec({
            id: 'window',
            model: server.model,
            baseUrl: server.baseUrl,
          }),
        ],
        declared,
      );
      expect(systems[0]?.memory).toBe('system');
      expect(systems[0]?.evidenceClass).toBe('scripted_baseline');
      const run = await createRun({
        settings: defaultOfflineSettings({ ...common, systems }),
        runDir: join(root, 'served'),
      });
      const sessions: string[] = [];
      const recordingFetch: typeof fetch = async (input, init) => {
        const headers = new Headers((input as Request).headers ?? init?.headers);
        const url = input instanceof Request ? input.url : String(input);
        // sessions only: the instance-control export of bytes stored is not a session
        if (!url.includes('/chi/instances/'))
          sessions.push(headers.get('x-chi-session') ?? '(none)');
        return fetch(input, init);
      };
      const models = () =>
        modelsForManifest(run.frozen.manifest, { fetch: recordingFetch, env: {} });
      const seed = run.frozen.manifest.worldSeeds[0];
      const killAt = `window.memory.w${seed}.n32.encode`;
      await expect(
        executeRun({
          runDir: run.runDir,
          models: new Map([['window', dyingAfter(models().get('window') as ChatModel, killAt)]]),
        }),
      ).rejects.toThrow(/killed/);
      const resumed = await executeRun({ runDir: run.runDir, models: models() });
      // the encode reached the server once and was never sent again; its probes were not sent
      expect(sessions.filter((session) => session === killAt)).toHaveLength(1);
      expect(
        sessions.some((session) => session.startsWith(`window.memory.w${seed}.n32.probe`)),
      ).toBe(false);
      expect(sessions).not.toContain('(none)');
      expect(resumed.incompleteBlocks).toBe(1);
      const abandoned = attempts(run.runDir).filter((record) => record.phase === 'abandoned');
      expect(abandoned.map((record) => record.requestId)).toEqual([killAt]);
      expect(JSON.stringify(abandoned[0])).toContain(
        'never re-sent: the system keeps its own memory',
      );
    }, 120_000);
  });
});
