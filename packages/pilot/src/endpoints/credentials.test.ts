import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunManifest } from '@chi/spec';
import { afterAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../cli/cli-io';
import { runCli } from '../cli/cli-main';
import { serveScriptedSystem } from './serve';

const root = mkdtempSync(join(tmpdir(), 'chi-credentials-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const OPENROUTER_KEY = 'sk-or-v1-openrouter-secret-0123456789';
const ENDPOINT_KEY = 'endpoint-secret-abcdef0123456789';
const ENV = { OPENROUTER_API_KEY: OPENROUTER_KEY, OPENAI_API_KEY: ENDPOINT_KEY };

/** Every request the CLI makes, with the host it went to and the credential it carried. */
interface Sent {
  readonly host: string;
  readonly path: string;
  readonly authorization: string | null;
}

/** A fetch that records each request and forwards it to the loopback server. */
function recordingFetch(sent: Sent[]): typeof globalThis.fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    sent.push({
      host: url.host,
      path: url.pathname,
      authorization: request.headers.get('authorization'),
    });
    return globalThis.fetch(request);
  };
}

function io(overrides: Partial<CliIo>): CliIo {
  return {
    stdout: { write: () => true },
    stderr: { write: () => true },
    env: ENV,
    cwd: root,
    ...overrides,
  };
}

describe('credentials of a --base-url run', () => {
  it('a resume sends the first session credential to the endpoint and never the OpenRouter key', async () => {
    const server = await serveScriptedSystem({ system: 'capacity-keeper' });
    try {
      const out = join(root, 'base-url');
      const first: Sent[] = [];
      // Stop the first session after its third completion, so the resume has requests to send.
      const stop = new AbortController();
      const firstFetch = recordingFetch(first);
      const code = await runCli(
        [
          'pilot',
          '--base-url',
          server.baseUrl,
          '--models',
          server.model,
          '--replicates',
          '1',
          '--loads',
          '32',
          '--no-history',
          '--no-behavior',
          '--ceiling-usd',
          '0',
          '--concurrency',
          '1',
          '--out',
          out,
          '--no-release',
        ],
        io({
          signal: stop.signal,
          fetch: async (input, init) => {
            const response = await firstFetch(input, init);
            const completions = first.filter((entry) =>
              entry.path.endsWith('/chat/completions'),
            ).length;
            if (completions >= 3) stop.abort();
            return response;
          },
        }),
      );
      expect(code).toBe(3);
      const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as RunManifest;
      expect(manifest.systems.map((system) => system.apiKeyEnv)).toEqual(['OPENAI_API_KEY']);
      expect(readFileSync(join(out, 'manifest.json'), 'utf8')).not.toContain(ENDPOINT_KEY);

      const resumed: Sent[] = [];
      expect(
        await runCli(
          ['pilot', '--resume', out, '--no-release'],
          io({ fetch: recordingFetch(resumed) }),
        ),
      ).toBe(0);
      const completions = resumed.filter((entry) => entry.path.endsWith('/chat/completions'));
      expect(completions.length).toBeGreaterThan(0);
      for (const entry of [...first, ...resumed]) {
        expect(entry.host).toBe(new URL(server.baseUrl).host);
        expect(entry.authorization ?? '').not.toContain(OPENROUTER_KEY);
      }
      const firstCompletions = first.filter((entry) => entry.path.endsWith('/chat/completions'));
      expect(new Set(firstCompletions.map((entry) => entry.authorization))).toEqual(
        new Set([`Bearer ${ENDPOINT_KEY}`]),
      );
      expect(new Set(completions.map((entry) => entry.authorization))).toEqual(
        new Set([`Bearer ${ENDPOINT_KEY}`]),
      );
    } finally {
      await server.close();
    }
  });
});
