import type { ChatModel, InstanceControl } from '@chi/spec';
import { afterAll, describe, expect, it } from 'vitest';
import { servedScriptedModels, withServedDeclarations } from '../endpoints/endpoint-models';
import { type ScriptedServer, serveScriptedSystem } from '../endpoints/serve';
import { modelForSystem } from '../endpoints/system-models';
import { openAiCompatibleSystemSpec } from '../settings';
import { createMemoryReferenceModel, memoryReferenceSpec } from './reference-systems';

const block = (name: string, value: unknown) =>
  `BEGIN ${name} JSON\n${JSON.stringify(value)}\nEND ${name} JSON`;
const RECORD = {
  key: '7kq2-mx0d',
  value: '0a1b2c3d',
  source: 'ledger',
  eventTime: '2026-01-01T00:00:00Z',
  authority: 1,
};
const encode = [block('REQUEST', { task: 'memory_encode' }), block('RECORDS', [RECORD])].join('\n');
const probe = [
  block('REQUEST', { task: 'memory_probe' }),
  block('QUESTIONS', [{ id: 'q1', key: RECORD.key, asOf: null }]),
].join('\n');

async function send(model: ChatModel, instanceId: string, prompt: string): Promise<unknown> {
  const result = await model.generate({
    requestId: `${instanceId}-${prompt.length}`,
    messages: [{ role: 'user', content: prompt }],
    instance: { instanceId, sessionId: 's' },
  });
  return JSON.parse(result.text ?? 'null');
}

const recalled = [{ id: 'q1', value: RECORD.value, source: RECORD.source }];
const blank = [{ id: 'q1', value: null, source: null }];

/** Export / import / erase move and clear one instance's memory, and nothing else. */
async function checkControl(model: ChatModel): Promise<void> {
  const control = model.instanceControl as InstanceControl;
  expect(control.version).toBe('chi-instance-control-v1');
  await send(model, 'i1', encode);
  const exported = await control.exportState('i1');
  expect(exported.bytesStored).toBe(Buffer.byteLength(JSON.stringify(RECORD)));
  expect((await control.exportState('never-written')).bytesStored).toBe(0);
  await control.importState('i2', exported);
  expect(await send(model, 'i2', probe)).toEqual(recalled);
  await control.erase('i1');
  expect(await send(model, 'i1', probe)).toEqual(blank);
  // the copy is its own memory: erasing i1 left i2 as imported
  expect(await send(model, 'i2', probe)).toEqual(recalled);
  await expect(control.importState('i3', { state: { wrong: 1 }, bytesStored: 0 })).rejects.toThrow(
    /state/,
  );
}

describe('the instance-control extension of the reference memory systems', () => {
  const servers: ScriptedServer[] = [];
  afterAll(async () => Promise.all(servers.map((server) => server.close())));

  it('in process: window and keyword-store export, import and erase; leaky-store offers none', async () => {
    for (const name of ['window', 'keyword-store']) {
      expect(memoryReferenceSpec(name).instanceControl).toBe('chi-instance-control-v1');
      await checkControl(createMemoryReferenceModel(name));
    }
    expect(memoryReferenceSpec('leaky-store').instanceControl).toBeUndefined();
    expect(createMemoryReferenceModel('leaky-store').instanceControl).toBeUndefined();
  });

  it('over HTTP: chi serve declares it in GET /v1/models, the manifest entry records it, the transport drives it', async () => {
    const server = await serveScriptedSystem({ system: 'keyword-store' });
    servers.push(server);
    const listed = (await (await fetch(`${server.baseUrl}/models`)).json()) as {
      data: { chi: { instanceControl?: string } }[];
    };
    expect(listed.data[0]?.chi.instanceControl).toBe('chi-instance-control-v1');
    const [system] = withServedDeclarations(
      [openAiCompatibleSystemSpec({ id: 'kw', model: server.model, baseUrl: server.baseUrl })],
      servedScriptedModels(listed),
    );
    expect(system?.instanceControl).toBe('chi-instance-control-v1');
    const model = modelForSystem(
      system as NonNullable<typeof system>,
      { deadlineMs: 10_000, retry: { maxRetries: 0, retryAfterCapMs: 0 }, reservationMargin: 1 },
      {},
    );
    await checkControl(model);
  });

  it('an adapter that is not a scripted system declares it alone, and only that is carried', () => {
    const served = servedScriptedModels({
      data: [
        {
          id: 'acme/memory',
          owned_by: 'acme',
          chi: { instanceControl: 'chi-instance-control-v1' },
        },
      ],
    });
    const [system] = withServedDeclarations(
      [
        openAiCompatibleSystemSpec({
          id: 'acme',
          model: 'acme/memory',
          baseUrl: 'http://127.0.0.1:9/v1',
        }),
      ],
      served,
    );
    expect(system?.instanceControl).toBe('chi-instance-control-v1');
    expect(system?.evidenceClass).not.toBe('scripted_baseline');
  });
});
