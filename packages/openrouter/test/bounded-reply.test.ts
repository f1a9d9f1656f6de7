import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryLedger } from '../src/memory-ledger';
import { createOpenRouterModel } from '../src/openrouter-model';

const KEY = 'sk-or-v1-FAKE-BOUNDED-REPLY-KEY-0123456789';
const CHUNK_BYTES = 64 * 1024;
/** What the server would send if nobody stopped it: far more than any socket buffer holds. */
const OFFERED_BYTES = 64 * 1024 * 1024;
const CAP = 100;

interface StreamingServer {
  readonly baseURL: string;
  /** Bytes the server managed to write before the client stopped reading and closed. */
  written(): number;
  /** Resolves when the client's connection has closed. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * A 127.0.0.1 server whose completion is a 200 JSON body claiming 3 completion tokens, streamed
 * in 64 KiB chunks (no content-length) with backpressure: it writes only as fast as the client
 * reads, and stops when the client goes away.
 */
async function startStreamingServer(): Promise<StreamingServer> {
  let written = 0;
  let onClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    onClosed = resolve;
  });
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', async () => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.on('close', onClosed);
      response.write(
        '{"id":"gen-1","model":"moonshotai/kimi-k3","usage":{"completion_tokens":3,"cost":0.001},"choices":[{"finish_reason":"stop","message":{"content":"',
      );
      const chunk = Buffer.alloc(CHUNK_BYTES, 'a');
      while (written < OFFERED_BYTES && !response.destroyed) {
        written += chunk.byteLength;
        if (!response.write(chunk))
          await new Promise<void>((resolve) => {
            response.once('drain', resolve);
            response.once('close', resolve);
          });
      }
      if (!response.destroyed) response.end('"}}]}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/api/v1`,
    written: () => written,
    closed,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let server: StreamingServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

describe('a reply larger than its output cap allows', () => {
  it('is read no further than the limit, recorded as a model failure, and stored nowhere', async () => {
    server = await startStreamingServer();
    const model = createOpenRouterModel({
      model: 'moonshotai/kimi-k3',
      providers: ['moonshotai/mxfp4'],
      apiKey: KEY,
      baseURL: server.baseURL,
      ledger: createMemoryLedger({ ceilingUsd: 1 }),
      safetyPrice: { inputUsdPerToken: 1e-6, outputUsdPerToken: 4e-6, requestUsd: 0 },
      reservationMargin: 0,
      maxOutputTokens: CAP,
      sleep: async () => {},
    });
    const result = await model.generate({
      requestId: 'req-1',
      messages: [{ role: 'user', content: 'Say OK.' }],
    });
    // `replyByteLimit`: max_tokens x 64 bytes + a 64 KiB envelope (docs: packages/openrouter README)
    const limit = CAP * 64 + 64 * 1024;
    // a model failure (never retried: one try), with no text and no raw response kept
    expect(result.failure).toBe('invalid_response');
    expect(result.tries).toHaveLength(1);
    expect(result.text).toBeNull();
    expect(result.redactedResponse).toBeNull();
    expect(result.failureDetail).toContain(`passed ${limit} bytes`);
    const bytesRead = Number(
      /reading stopped after (\d+) bytes/.exec(result.failureDetail ?? '')?.[1],
    );
    // the client read at most one chunk past the limit
    expect(bytesRead).toBeGreaterThan(limit);
    expect(bytesRead).toBeLessThanOrEqual(limit + 4 * CHUNK_BYTES);
    // and closed the connection: the server stopped long before what it offered
    await server.closed;
    expect(server.written()).toBeLessThan(OFFERED_BYTES / 4);
    // nothing of the body is stored: the whole result is small
    expect(JSON.stringify(result).length).toBeLessThan(8 * 1024);
  });
});
