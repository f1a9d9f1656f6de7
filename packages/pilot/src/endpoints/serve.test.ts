import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderJsonBlock } from '@chi/experiment';
import { createOpenRouterModel } from '@chi/openrouter';
import type { AttemptRecord, RunManifest } from '@chi/spec';
import type { NotebookSnapshot } from '@chi/spec/internal';
import { isInfrastructureFailure } from '@chi/spec/internal';
import { checkChatModelContract } from '@chi/spec/test';
import OpenAI, {
  type APIError,
  BadRequestError,
  NotFoundError,
  UnprocessableEntityError,
} from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryScoresOf } from '../__fixtures__/memory-scores';
import type { PilotSettings } from '../pilot-settings';
import { createRun } from '../run-folder/run-create';
import { executeRun } from '../runner/run-execute';
import {
  createScriptedModel,
  SCRIPTED_SYSTEM_NAMES,
  scriptedSystemSpec,
} from '../scripted/scripted-systems';
import { defaultOfflineSettings, openAiCompatibleSystemSpec } from '../settings';
import { servedScriptedModels, withServedDeclarations } from './endpoint-models';
import { type ScriptedServer, serveScriptedSystem } from './serve';
import { modelsForManifest } from './system-models';

let root: string;
const servers = new Map<string, ScriptedServer>();

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'chi-serve-'));
  for (const name of SCRIPTED_SYSTEM_NAMES)
    servers.set(name, await serveScriptedSystem({ system: name }));
});
afterAll(async () => {
  await Promise.all([...servers.values()].map((server) => server.close()));
  rmSync(root, { recursive: true, force: true });
});

const served = (name: string) => servers.get(name) as ScriptedServer;
const client = (server: ScriptedServer) =>
  new OpenAI({ baseURL: server.baseUrl, apiKey: 'not-checked', maxRetries: 0 });

/** A prompt every scripted system can read: the smoke task. */
const SMOKE_PROMPT = `${renderJsonBlock('REQUEST', { task: 'smoke', nonce: '0123456789abcdef' })}\n${renderJsonBlock('QUESTIONS', [{ id: 'q', value: '00000000', source: 's' }])}`;

async function inProcessText(name: string, content: string): Promise<string | null> {
  const result = await createScriptedModel(name).generate({
    requestId: 'r',
    messages: [{ role: 'user', content }],
  });
  return result.text;
}

const finalTexts = (runDir: string) => {
  const texts = new Map<string, string | null>();
  for (const line of readFileSync(join(runDir, 'attempts.jsonl'), 'utf8').trim().split('\n')) {
    const record = JSON.parse(line) as AttemptRecord;
    if (record.phase === 'after_response') texts.set(record.requestId, record.result?.text ?? null);
  }
  return texts;
};

/** `capBytes` and `truncated` of every notebook snapshot, by its path in the run folder. */
const notebookCaps = (runDir: string) => {
  const caps = new Map<string, Pick<NotebookSnapshot, 'capBytes' | 'truncated'>>();
  const notebooks = join(runDir, 'notebooks');
  for (const path of readdirSync(notebooks, { recursive: true, encoding: 'utf8' })) {
    if (!path.endsWith('.json')) continue;
    const snapshot = JSON.parse(readFileSync(join(notebooks, path), 'utf8')) as NotebookSnapshot;
    caps.set(path, { capBytes: snapshot.capBytes, truncated: snapshot.truncated });
  }
  return caps;
};

describe('chi serve with the official openai client', () => {
  it('answers a plain completion with the in-process reply, usage and the served model name', async () => {
    const server = served('capacity-keeper');
    const completion = await client(server).chat.completions.create({
      model: server.model,
      messages: [{ role: 'user', content: SMOKE_PROMPT }],
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('scripted/capacity-keeper');
    expect(completion.choices[0]?.message.content).toBe(
      await inProcessText('capacity-keeper', SMOKE_PROMPT),
    );
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.usage?.total_tokens).toBeGreaterThan(0);
  });

  it('streams server-sent chunks whose concatenation is the reply, then the usage chunk', async () => {
    const server = served('perfect');
    const openai = client(server);
    const stream = await openai.chat.completions.create({
      model: server.model,
      messages: [{ role: 'user', content: SMOKE_PROMPT }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const expected = await inProcessText('perfect', SMOKE_PROMPT);
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe(expected);
    const last = chunks[chunks.length - 1];
    expect(last?.choices).toEqual([]);
    expect(last?.usage?.completion_tokens).toBe(Math.ceil(Buffer.byteLength(expected ?? '') / 4));
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
    expect(chunks[chunks.length - 2]?.choices[0]?.finish_reason).toBe('stop');

    const final = await openai.chat.completions
      .stream({ model: server.model, messages: [{ role: 'user', content: SMOKE_PROMPT }] })
      .finalChatCompletion();
    expect(final.choices[0]?.message.content).toBe(expected);
  });

  it('streams a long reply in several content chunks', async () => {
    const server = served('perfect');
    const records = Array.from({ length: 40 }, (_, index) => ({
      key: `k${index}`,
      value: '0a1b2c3d',
    }));
    const prompt = `${renderJsonBlock('REQUEST', { task: 'smoke', nonce: '0123456789abcdef' })}\n${renderJsonBlock(
      'QUESTIONS',
      records.map((record) => ({
        id: record.key,
        value: record.value,
        source: 'a-long-source-name',
      })),
    )}`;
    const stream = await client(server).chat.completions.create({
      model: server.model,
      messages: [{ role: 'user', content: prompt }],
      stream: true,
    });
    const pieces: string[] = [];
    for await (const chunk of stream) {
      expect(chunk.usage ?? null).toBeNull();
      const content = chunk.choices[0]?.delta.content;
      if (content) pieces.push(content);
    }
    const expected = (await inProcessText('perfect', prompt)) ?? '';
    expect(expected.length).toBeGreaterThan(512);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe(expected);
  });

  it('reads content as an array of text parts like the same text as a string', async () => {
    const server = served('latest-wins');
    const [request, questions] = SMOKE_PROMPT.split('\nBEGIN QUESTIONS') as [string, string];
    const completion = await client(server).chat.completions.create({
      model: server.model,
      messages: [
        { role: 'developer', content: 'You are a memory system.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: request },
            { type: 'text', text: `BEGIN QUESTIONS${questions}` },
          ],
        },
      ],
    });
    expect(completion.choices[0]?.message.content).toBe(
      await inProcessText('latest-wins', SMOKE_PROMPT),
    );
    const error = await client(server)
      .chat.completions.create({
        model: server.model,
        messages: [
          {
            role: 'user',
            content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AA==' } }],
          },
        ],
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as APIError).param).toBe('messages[0].content[0]');
  });

  it('honours max_tokens: the reply is cut there and finishes with length, streamed or not', async () => {
    const server = served('capacity-keeper');
    const openai = client(server);
    const expected = (await inProcessText('capacity-keeper', SMOKE_PROMPT)) ?? '';
    expect(Buffer.byteLength(expected)).toBeGreaterThan(8);
    const cut = await openai.chat.completions.create({
      model: server.model,
      messages: [{ role: 'user', content: SMOKE_PROMPT }],
      max_tokens: 2,
    });
    expect(cut.choices[0]?.message.content).toBe(expected.slice(0, 8));
    expect(cut.choices[0]?.finish_reason).toBe('length');
    expect(cut.usage?.completion_tokens).toBe(2);
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    const stream = await openai.chat.completions.create({
      model: server.model,
      messages: [{ role: 'user', content: SMOKE_PROMPT }],
      max_completion_tokens: 2,
      stream: true,
    });
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe(
      expected.slice(0, 8),
    );
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('length');
    const whole = await openai.chat.completions.create({
      model: server.model,
      messages: [{ role: 'user', content: SMOKE_PROMPT }],
      max_tokens: 4096,
    });
    expect(whole.choices[0]?.message.content).toBe(expected);
    expect(whole.choices[0]?.finish_reason).toBe('stop');
  });

  it('refuses n > 1 (and a bad n or max_tokens) with a 400 naming the field', async () => {
    const server = served('perfect');
    const refused = async (extra: Record<string, unknown>) => {
      const response = await fetch(`${server.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: server.model,
          messages: [{ role: 'user', content: SMOKE_PROMPT }],
          ...extra,
        }),
      });
      return {
        status: response.status,
        error: ((await response.json()) as { error: { param: string; message: string } }).error,
      };
    };
    const two = await refused({ n: 2 });
    expect(two.status).toBe(400);
    expect(two.error.param).toBe('n');
    expect(two.error.message).toMatch(/^n: .*one choice per request.*found n = 2/);
    expect((await refused({ n: 0 })).error.param).toBe('n');
    expect((await refused({ max_tokens: 'many' })).error.param).toBe('max_tokens');
    expect((await refused({ n: 1 })).status).toBe(200);
  });

  it('answers an unreadable prompt with HTTP 422 and an OpenAI error body, never 200', async () => {
    const server = served('perfect');
    const error = await client(server)
      .chat.completions.create({
        model: server.model,
        messages: [{ role: 'user', content: 'Say hi' }],
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    expect((error as UnprocessableEntityError).status).toBe(422);
    expect((error as UnprocessableEntityError).code).toBe('unreadable_prompt');
    expect((error as UnprocessableEntityError).message).toMatch(
      /scripted system cannot read this prompt/,
    );
    const streamed = await client(server)
      .chat.completions.create({
        model: server.model,
        messages: [{ role: 'user', content: 'Say hi' }],
        stream: true,
      })
      .catch((caught: unknown) => caught);
    expect(streamed).toBeInstanceOf(UnprocessableEntityError);
  });

  it('refuses an unknown model with 404 model_not_found and lists and retrieves its own', async () => {
    const server = served('abstainer');
    const openai = client(server);
    const error = await openai.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: SMOKE_PROMPT }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).code).toBe('model_not_found');
    const page = await openai.models.list();
    expect(page.data.map((model) => model.id)).toEqual(['scripted/abstainer']);
    const entry = await openai.models.retrieve('scripted/abstainer');
    expect(entry).toMatchObject({
      id: 'scripted/abstainer',
      object: 'model',
      owned_by: 'chi-scripted',
    });
    expect(Number.isInteger(entry.created) && entry.created > 1_700_000_000).toBe(true);
    expect(page.data[0]?.created).toBe(entry.created);
    await expect(openai.models.retrieve('gpt-4o')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('answers unknown routes and bad bodies with 4xx and the OpenAI error body', async () => {
    const server = served('abstainer');
    const unknown = await fetch(`${server.baseUrl}/embeddings`, { method: 'POST', body: '{}' });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({
      error: { message: 'Invalid URL (POST /v1/embeddings)', param: null, code: 'not_found' },
    });
    const broken = await fetch(`${server.baseUrl}/chat/completions`, {
      method: 'POST',
      body: '{"model":',
    });
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ error: { type: 'invalid_request_error' } });
    const noModel = await fetch(`${server.baseUrl}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(noModel.status).toBe(400);
    expect(await noModel.json()).toMatchObject({ error: { param: 'model' } });
  });
});

describe('chi serve through the pilot transport', () => {
  it('meets the ChatModel contract', async () => {
    const server = served('capacity-keeper');
    const model = createOpenRouterModel({
      mode: 'openai-compatible',
      baseURL: server.baseUrl,
      model: server.model,
      evidenceClass: 'scripted_baseline',
    });
    const request = { messages: [{ role: 'user' as const, content: SMOKE_PROMPT }] };
    expect(await checkChatModelContract(model, { request })).toEqual([]);
  });

  it('records an unreadable prompt as a model failure with no text, charged 0, not retried, block complete', async () => {
    const server = served('perfect');
    const model = createOpenRouterModel({
      mode: 'openai-compatible',
      baseURL: server.baseUrl,
      model: server.model,
      evidenceClass: 'scripted_baseline',
    });
    const messages = [{ role: 'user' as const, content: 'Say hi' }];
    const overHttp = await model.generate({ requestId: 'r', messages });
    const inProcess = await createScriptedModel('perfect').generate({ requestId: 'r', messages });
    expect(inProcess).toMatchObject({ text: null, failure: 'invalid_response', chargedUsd: 0 });
    expect(overHttp).toMatchObject({ text: null, failure: 'http_fatal', chargedUsd: 0 });
    expect(overHttp.tries).toHaveLength(1);
    expect(overHttp.tries[0]?.status).toBe(422);
    // Both are the model's failures: the block stays complete and every probe of it fails.
    expect(isInfrastructureFailure(overHttp)).toBe(false);
    expect(isInfrastructureFailure(inProcess)).toBe(false);
  });

  it('a pilot run through chi serve scores exactly like the in-process run, for every scripted system', async () => {
    const common: Partial<PilotSettings> = {
      replicates: 2,
      loads: [32, 128],
      concurrency: 8,
      behavior: false,
    };
    const inProcess = await createRun({
      settings: defaultOfflineSettings({
        ...common,
        systems: SCRIPTED_SYSTEM_NAMES.map((name) => scriptedSystemSpec(name)),
      }),
      runDir: join(root, 'in-process'),
    });
    // The served systems' manifest entries come from what each endpoint declares, as in the CLI.
    const systems = [];
    for (const name of SCRIPTED_SYSTEM_NAMES) {
      const server = served(name);
      const declared = servedScriptedModels(await (await fetch(`${server.baseUrl}/models`)).json());
      systems.push(
        ...withServedDeclarations(
          [openAiCompatibleSystemSpec({ id: name, model: server.model, baseUrl: server.baseUrl })],
          declared,
        ),
      );
    }
    const overHttp = await createRun({
      settings: defaultOfflineSettings({ ...common, systems }),
      runDir: join(root, 'served'),
    });
    const manifest = JSON.parse(
      readFileSync(join(overHttp.runDir, 'manifest.json'), 'utf8'),
    ) as RunManifest;
    for (const [index, system] of manifest.systems.entries()) {
      const reference = inProcess.frozen.manifest.systems[index];
      expect(system.evidenceClass).toBe('scripted_baseline');
      expect(system.uncappedNotebook ?? false).toBe(reference?.uncappedNotebook ?? false);
      expect(system.scripted).toEqual(reference?.scripted);
    }
    // HTTP carries only the prompt, so a served system draws by the prompt's nonce; the
    // in-process reference draws the same way here (by default it draws per instance).
    const a = await executeRun({
      runDir: inProcess.runDir,
      models: new Map(
        SCRIPTED_SYSTEM_NAMES.map((name) => [name, createScriptedModel(name, { noise: 'prompt' })]),
      ),
    });
    const b = await executeRun({
      runDir: overHttp.runDir,
      models: modelsForManifest(overHttp.frozen.manifest),
    });
    expect(a.state).toBe('completed');
    expect(b.state).toBe('completed');
    expect(b.incompleteBlocks).toBe(0);
    expect(finalTexts(overHttp.runDir)).toEqual(finalTexts(inProcess.runDir));
    const caps = notebookCaps(overHttp.runDir);
    expect(caps).toEqual(notebookCaps(inProcess.runDir));
    for (const [path, { capBytes }] of caps)
      expect(capBytes).toBe(path.startsWith('perfect/') ? null : 6000);
    const scores = memoryScoresOf(overHttp.runDir);
    expect(scores).toEqual(memoryScoresOf(inProcess.runDir));
    // The declared reference condition holds over HTTP: perfect keeps Q_M = 1 past the cap.
    expect(scores.get('perfect notebook 128')?.qualityScore).toBe(1);
  }, 300_000);

  it('refuses a non-loopback host and an unknown system', async () => {
    await expect(serveScriptedSystem({ system: 'perfect', host: '0.0.0.0' })).rejects.toThrow(
      /host: expected a loopback address/,
    );
    await expect(serveScriptedSystem({ system: 'nope' })).rejects.toThrow(
      /system: expected one of/,
    );
  });
});
