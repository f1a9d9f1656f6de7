import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenRouterModel } from '@chi/openrouter';
import type { AttemptRecord } from '@chi/spec';
import { checkChatModelContract } from '@chi/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryScoresOf } from './__fixtures__/memory-scores';
import { renderJsonBlock } from './json-blocks';
import { createRun } from './run-create';
import { executeRun } from './run-execute';
import { scriptedSystemSpec } from './scripted-systems';
import { type ScriptedServer, serveScriptedSystem } from './serve';
import { defaultOfflineSettings, openAiCompatibleSystemSpec, type PilotSettings } from './settings';
import { modelsForManifest } from './system-models';

const NAMES = ['capacity-keeper', 'latest-wins', 'confabulator'] as const;
let root: string;
const servers: ScriptedServer[] = [];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'chi-serve-'));
  for (const name of NAMES) servers.push(await serveScriptedSystem({ system: name }));
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  rmSync(root, { recursive: true, force: true });
});

const finalTexts = (runDir: string) => {
  const texts = new Map<string, string | null>();
  for (const line of readFileSync(join(runDir, 'attempts.jsonl'), 'utf8').trim().split('\n')) {
    const record = JSON.parse(line) as AttemptRecord;
    if (record.phase === 'after_response') texts.set(record.requestId, record.result?.text ?? null);
  }
  return texts;
};

describe('chi serve', () => {
  it('answers through the real HTTP transport and meets the ChatModel contract', async () => {
    const server = servers[0] as ScriptedServer;
    const model = createOpenRouterModel({
      mode: 'openai-compatible',
      baseURL: server.baseUrl,
      model: server.model,
      evidenceClass: 'scripted_baseline',
    });
    const request = {
      messages: [
        {
          role: 'user' as const,
          content: `${renderJsonBlock('REQUEST', { task: 'smoke', nonce: '0123456789abcdef' })}\n${renderJsonBlock('QUESTIONS', [{ id: 'q', value: '00000000', source: 's' }])}`,
        },
      ],
    };
    expect(await checkChatModelContract(model, { request })).toEqual([]);
    const response = await fetch(`${server.baseUrl}/models`);
    expect(await response.json()).toEqual({
      object: 'list',
      data: [{ id: 'scripted/capacity-keeper', object: 'model', owned_by: 'chi-scripted' }],
    });
  });

  it('a pilot run through chi serve and the HTTP transport scores exactly like the in-process run', async () => {
    const common: Partial<PilotSettings> = { replicates: 2, loads: [32, 64], concurrency: 4 };
    const inProcess = await createRun({
      settings: defaultOfflineSettings({
        ...common,
        systems: NAMES.map((name) => scriptedSystemSpec(name)),
      }),
      runDir: join(root, 'in-process'),
    });
    const served = await createRun({
      settings: defaultOfflineSettings({
        ...common,
        systems: NAMES.map((name, index) =>
          openAiCompatibleSystemSpec({
            id: name,
            model: `scripted/${name}`,
            baseUrl: (servers[index] as ScriptedServer).baseUrl,
            evidenceClass: 'scripted_baseline',
          }),
        ),
      }),
      runDir: join(root, 'served'),
    });
    const a = await executeRun({
      runDir: inProcess.runDir,
      models: modelsForManifest(inProcess.frozen.manifest),
    });
    const b = await executeRun({
      runDir: served.runDir,
      models: modelsForManifest(served.frozen.manifest),
    });
    expect(a.state).toBe('completed');
    expect(b.state).toBe('completed');
    expect(b.incompleteBlocks).toBe(0);
    expect(servers.reduce((sum, server) => sum + server.requestCount(), 0)).toBeGreaterThanOrEqual(
      served.plan.requests.length,
    );
    expect(finalTexts(served.runDir)).toEqual(finalTexts(inProcess.runDir));
    expect(memoryScoresOf(served.runDir)).toEqual(memoryScoresOf(inProcess.runDir));
  });

  it('refuses a non-loopback host and an unknown system', async () => {
    await expect(serveScriptedSystem({ system: 'perfect', host: '0.0.0.0' })).rejects.toThrow(
      /host: expected a loopback address/,
    );
    await expect(serveScriptedSystem({ system: 'nope' })).rejects.toThrow(
      /system: expected one of/,
    );
  });
});
