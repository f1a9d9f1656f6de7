import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChatModel } from '@chi/spec';
import { describe, expect, it } from 'vitest';
import { loadPromptTemplates } from '../prompts';
import { type DivergenceLogLine, executeDivergence } from './execute';
import { divergenceManifestSha256 } from './manifest';
import { writeDivergenceRelease } from './release';
import {
  createDivergenceRun,
  defaultDivergenceManifest,
  divergenceModels,
  executeDivergenceSession,
  finishDivergenceRun,
} from './run';

const AT = '2026-09-01T00:00:00.000Z';

async function freshRun(root: string, name: string): Promise<string> {
  const runDir = join(root, name);
  await createDivergenceRun(runDir, defaultDivergenceManifest(1, AT, loadPromptTemplates(), 20));
  return runDir;
}

async function release(runDir: string): Promise<Record<string, string>> {
  const { analysis } = await finishDivergenceRun(runDir);
  const dir = await writeDivergenceRelease(runDir, analysis);
  return Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((name) => [name, readFileSync(join(dir, name), 'utf8')]),
  );
}

describe('resuming a divergence run of in-process scripted systems', () => {
  it('rebuilds hidden state by local replay and publishes the uninterrupted release', async () => {
    const root = mkdtempSync(join(tmpdir(), 'chi-divergence-resume-'));
    const reference = await freshRun(root, 'reference');
    await executeDivergenceSession({ runDir: reference });
    const runDir = await freshRun(root, 'crashed');
    const manifest = defaultDivergenceManifest(1, AT, loadPromptTemplates(), 20);
    const real = divergenceModels(manifest);
    // the 500th request dies mid-flight (its send record is on disk, its result never is): 231
    // requests per system, so it lies in the hidden-state system's exposure checkpoint, after
    // several of its instances ingested their history: their hidden state must be rebuilt
    let sent = 0;
    const crashing = (systemId: string, worldSeed: number, armId: string): ChatModel => {
      const model = real(systemId, worldSeed, armId);
      return {
        ...model,
        generate: async (request) => {
          sent += 1;
          if (sent === 500) throw new Error('killed');
          return model.generate(request);
        },
      };
    };
    await expect(executeDivergenceSession({ runDir, modelFor: crashing })).rejects.toThrow(
      'killed',
    );
    expect(readFileSync(join(runDir, 'calls.jsonl'), 'utf8').split('\n')).toHaveLength(500);
    await executeDivergenceSession({ runDir });
    expect(await release(runDir)).toEqual(await release(reference));
  }, 120_000);
});

describe('a request left open on a paid system', () => {
  it('is never sent again: its instance ends, abandoned, with the reason', async () => {
    const manifest = defaultDivergenceManifest(1, AT, loadPromptTemplates(), 20);
    const models = divergenceModels(manifest);
    const requests: string[] = [];
    const lines: DivergenceLogLine[] = [];
    const openId = `stateless.divergence.w${manifest.worldSeeds[0]}.B.c0.probe.0`;
    const incomplete = await executeDivergence({
      manifest,
      manifestSha256: divergenceManifestSha256(manifest),
      prompts: loadPromptTemplates(),
      modelFor: (systemId, worldSeed, armId) => {
        const model = models(systemId, worldSeed, armId);
        return {
          ...model,
          generate: (request) => {
            requests.push(request.requestId);
            return model.generate(request);
          },
        };
      },
      record: async (line) => {
        lines.push(line);
      },
      resume: { logged: new Map(), open: new Set([openId]) },
      mayResend: () => false,
    });
    expect(requests).not.toContain(openId);
    expect(
      requests.filter((id) => id.startsWith('stateless.divergence.w') && id.includes('.B.c')),
    ).toEqual([]);
    expect(incomplete).toEqual([
      {
        systemId: 'stateless',
        worldSeed: manifest.worldSeeds[0],
        arm: 'B',
        requestId: openId,
        reason: 'abandoned: possibly sent before an interruption; never re-sent (paid system)',
      },
    ]);
    expect(lines.find((line) => line.requestId === openId)?.kind).toBe('divergence-abandoned');
  });
});

describe('a resumed session whose prompt templates changed', () => {
  it('sends nothing and names the manifest and the template (damaged run folder)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'chi-divergence-prompts-'));
    const runDir = await freshRun(root, 'run');
    const prompts = new Map(loadPromptTemplates());
    const probe = prompts.get('history-probe');
    expect(probe).toBeDefined();
    prompts.set('history-probe', {
      ...(probe as NonNullable<typeof probe>),
      sha256: 'ab'.repeat(32),
    });
    await expect(executeDivergenceSession({ runDir, prompts })).rejects.toThrow(
      /manifest\.json.*prompts: template history-probe hashes to abab/,
    );
    expect(readFileSync(join(runDir, 'calls.jsonl'), 'utf8')).toBe('');
  });
});
