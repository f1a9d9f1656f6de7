/**
 * Releases of real offline pilot runs. `@chi/pilot` depends on this package, so it is imported
 * here only through the workspace test alias (never declared: turbo rejects the cycle).
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  createScriptedModel,
  defaultOfflineSettings,
  openAiCompatibleSystemSpec,
  runPilot,
} from '@chi/pilot';
import { SCRIPTED_SYSTEM_NAMES } from '@chi/pilot/internal';
import { verifyRelease, writeRelease } from '@chi/report';
import { sha256Hex } from '@chi/run';
import type { ChatMessage } from '@chi/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../packages/report/src/__fixtures__/temp-dir';
import { listTreeFiles } from '../../packages/report/src/release/sha256-sums';
import { copySharedPilotRun, SHARED_PILOT_RUNS } from './__fixtures__/shared-pilot-run';

const GOLDEN = join(import.meta.dirname, '__fixtures__', 'golden', 'pilot-release.sha256');

/** A clock that advances one second per reading: run timestamps (and latencies) are fixed. */
describe('release of a real offline pilot run', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let runDir: string;
  beforeAll(async () => {
    dir = await tempDir('pilot');
    runDir = join(dir.path, 'run');
    // 2 worlds, loads 32 and 64, 200 resamples, concurrency 1, the fixed clock: made once per
    // vitest run and shared with view.browser.test.ts, copied here
    await copySharedPilotRun(SHARED_PILOT_RUNS.twoWorlds, runDir);
  });
  afterAll(async () => dir.remove());

  it('matches the golden chart data and verifies', async () => {
    const outDir = join(dir.path, 'release');
    const summary = await writeRelease({ runDir, outDir });
    expect(summary.evidenceBanner).toBe('Scripted baseline — not a measurement of any model');
    const data = JSON.parse(await readFile(join(outDir, 'chart-data', 'chart-data.json'), 'utf8'));
    expect(data.run.systems.map((s: { id: string }) => s.id)).toEqual([...SCRIPTED_SYSTEM_NAMES]);
    // the answer-key reference is perfect at every load; the abstainer never passes
    const q = (system: string, load: number) =>
      data.memory.find(
        (p: { systemId: string; condition: string; load: number }) =>
          p.systemId === system && p.condition === 'notebook' && p.load === load,
      )?.qualityScore.estimate;
    expect([q('perfect', 32), q('perfect', 64)]).toEqual([1, 1]);
    expect([q('abstainer', 32), q('abstainer', 64)]).toEqual([0, 0]);
    // Issue 31: the scripted systems draw per instance, so the same-history control A2 is a real
    // stochastic floor, and nothing diverges before any history (checkpoint 0).
    type Distance = { estimate: number; lower: number; upper: number };
    const distances = (system: string) =>
      data.historyDistances.filter((d: { systemId: string }) => d.systemId === system) as {
        checkpoint: number;
        distanceAA2: Distance;
        divergence: Distance;
      }[];
    const confabulator = distances('confabulator');
    expect(confabulator.some((d) => d.distanceAA2.estimate > 0)).toBe(true);
    for (const system of SCRIPTED_SYSTEM_NAMES) {
      const start = distances(system).find((d) => d.checkpoint === 0);
      expect(start?.divergence.lower, system).toBeLessThanOrEqual(0);
      expect(start?.divergence.upper, system).toBeGreaterThanOrEqual(0);
    }
    const actual = `${sha256Hex(await readFile(join(outDir, 'chart-data', 'chart-data.json')))}  chart-data/chart-data.json\n`;
    if (process.env.UPDATE_GOLDEN === '1') {
      const { writeFile } = await import('node:fs/promises');
      await writeFile(GOLDEN, actual);
    }
    expect(actual).toBe(await readFile(GOLDEN, 'utf8'));
    const report = await verifyRelease(outDir);
    expect(report.mismatches).toEqual([]);
    // gzip run files are hard links to the run folder's copies: identical bytes, stored once
    const [payload] = (await readdir(join(runDir, 'payloads'))).sort();
    const inode = async (path: string) => (await stat(path)).ino;
    expect(await inode(join(outDir, 'payloads', payload as string))).toBe(
      await inode(join(runDir, 'payloads', payload as string)),
    );
    // a second release of the same run is byte-identical
    const again = join(dir.path, 'release-again');
    await writeRelease({ runDir, outDir: again });
    expect(await readFile(join(again, 'SHA256SUMS'), 'utf8')).toBe(
      await readFile(join(outDir, 'SHA256SUMS'), 'utf8'),
    );
  });
});

const FAKE_KEY = 'sk-or-v1-chitestFAKEKEY0123456789abcdefRECOGNIZABLE';
const REASONING_MARK = 'HIDDEN-REASONING-7f3a9c-do-not-publish';

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/**
 * An OpenAI-compatible loopback endpoint that demands the fake key, answers as the scripted
 * capacity-keeper, attaches hidden reasoning to every reply, and fails its first request with a
 * 503 whose body echoes the Authorization header.
 */
async function startLeakyServer(): Promise<{
  server: Server;
  baseUrl: string;
  authorizations: string[];
}> {
  const model = createScriptedModel('capacity-keeper');
  const authorizations: string[] = [];
  let served = 0;
  const server = createServer(async (request, response) => {
    const authorization = request.headers.authorization ?? '';
    authorizations.push(authorization);
    const body = JSON.parse(await readBody(request)) as { messages: ChatMessage[]; model: string };
    const send = (status: number, value: unknown) => {
      const text = JSON.stringify(value);
      response.writeHead(status, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(text),
      });
      response.end(text);
    };
    if (authorization !== `Bearer ${FAKE_KEY}`) return send(401, { error: { message: 'bad key' } });
    served += 1;
    if (served === 1)
      return send(503, {
        error: { message: `overloaded; you sent Authorization: ${authorization}`, key: FAKE_KEY },
      });
    const result = await model.generate({ requestId: `leaky-${served}`, messages: body.messages });
    send(200, {
      id: `gen-leaky-${served}`,
      object: 'chat.completion',
      model: body.model,
      choices: [
        {
          index: 0,
          finish_reason: 'stop',
          message: {
            role: 'assistant',
            content: result.text,
            reasoning: `${REASONING_MARK} step by step`,
            reasoning_details: [{ type: 'reasoning.text', text: REASONING_MARK }],
          },
        },
      ],
      usage: {
        prompt_tokens: 10,
        completion_tokens: 5,
        total_tokens: 15,
        completion_tokens_details: { reasoning_tokens: 3 },
      },
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, baseUrl: `http://127.0.0.1:${port}/v1`, authorizations };
}

describe('secrets never reach the run folder or the release', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let leaky: Awaited<ReturnType<typeof startLeakyServer>>;
  beforeAll(async () => {
    dir = await tempDir('secrets');
    leaky = await startLeakyServer();
  });
  afterAll(async () => {
    await new Promise((resolve) => leaky.server.close(resolve));
    await dir.remove();
  });

  it('keeps the API key, the Authorization header and reasoning text out of every file', async () => {
    const runDir = join(dir.path, 'run');
    const settings = defaultOfflineSettings({
      systems: [
        openAiCompatibleSystemSpec({
          id: 'loopback',
          model: 'scripted/capacity-keeper',
          baseUrl: leaky.baseUrl,
          evidenceClass: 'scripted_baseline',
        }),
      ],
      replicates: 1,
      loads: [32],
      resamples: 50,
      concurrency: 1,
      maxRetries: 2,
      retryAfterCapMs: 10,
    });
    const outcome = await runPilot({
      settings,
      runDir,
      // the endpoint's own variable: the OpenRouter key shorthand (apiKey) never goes to it
      env: { OPENAI_API_KEY: FAKE_KEY },
      concurrency: 1,
      release: false,
    });
    expect(leaky.authorizations.length).toBeGreaterThan(10);
    expect(new Set(leaky.authorizations)).toEqual(new Set([`Bearer ${FAKE_KEY}`]));
    expect(outcome.execution.state).toBe('completed');
    const summary = await writeRelease({
      runDir,
      outDir: join(runDir, 'release'),
      forbiddenStrings: [FAKE_KEY],
    });
    expect(summary.files.length).toBeGreaterThan(50);
    const attempts = await readFile(join(runDir, 'attempts.jsonl'), 'utf8');
    expect(attempts).toContain('"reasoningTokens":3');
    // the 503 body echoed the header and the key: both reached the redaction, neither the log
    expect(attempts).toContain('you sent Authorization: Bearer [REDACTED]');
    const { files } = await listTreeFiles(runDir);
    expect(files.some((f) => f.startsWith('release/'))).toBe(true);
    const offenders: string[] = [];
    for (const file of [...files, 'release/SHA256SUMS']) {
      const text = await readFile(join(runDir, file), 'utf8');
      if (text.includes(FAKE_KEY)) offenders.push(`${file}: the API key`);
      if (text.includes('chitestFAKEKEY')) offenders.push(`${file}: part of the API key`);
      // the transport keeps an echoed header as "Bearer [REDACTED]"; any other bearer value is a leak
      if (/Bearer\s+(?!\[REDACTED\])\S/.test(text))
        offenders.push(`${file}: an Authorization header value`);
      if (text.includes(REASONING_MARK)) offenders.push(`${file}: hidden reasoning text`);
    }
    expect(offenders.join('\n')).toBe('');
  });
});
