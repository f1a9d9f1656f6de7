import { sha256Hex } from '@chi/run';
import { PlannedRequestSchema } from '@chi/spec';
import { describe, expect, it } from 'vitest';
import { applyNotebookCap } from '../notebook';
import { loadPromptTemplates } from '../prompts';
import { corruptedNotebook } from '../run-notebook-source';
import { type DivergenceCallRecord, executeDivergence } from './execute';
import { divergenceManifestSha256 } from './manifest';
import { divergenceBlockId, planDivergenceWorld } from './plan';
import { divergenceRequestsPerWorld } from './protocol';
import { defaultDivergenceManifest, scriptedDivergenceModels } from './run';

const prompts = loadPromptTemplates();
const manifest = defaultDivergenceManifest(1, '2026-09-01T00:00:00.000Z', prompts, 10);
const seed = manifest.worldSeeds[0] as number;
const units = planDivergenceWorld(manifest, seed);
const requests = units.flatMap((unit) =>
  manifest.systems.flatMap((system) => unit.requestsFor(system.id)),
);

/** What the sequential divergence executor sends and shows, for one world of every system. */
async function executedCalls(): Promise<DivergenceCallRecord[]> {
  const lines: DivergenceCallRecord[] = [];
  await executeDivergence({
    manifest,
    manifestSha256: divergenceManifestSha256(manifest),
    prompts,
    modelFor: scriptedDivergenceModels(manifest),
    record: async (line) => {
      if (line.kind === 'divergence-call') lines.push(line);
    },
  });
  return lines;
}

describe('the divergence protocol planned as runner blocks', () => {
  it('plans one valid block per instance with every call of every arm', () => {
    for (const request of requests) PlannedRequestSchema.parse(request);
    expect(requests).toHaveLength(divergenceRequestsPerWorld() * manifest.systems.length);
    expect(units).toHaveLength(manifest.arms.length * manifest.systems.length);
    const system = manifest.systems[0]?.id as string;
    const aSwap = requests.find(
      (r) =>
        r.blockId === divergenceBlockId(seed, 'A.swap', system) && r.step === 'A.swap.c2.update.0',
    );
    // Lockstep: the first call after the swap needs the partner's exposure notebook.
    expect(aSwap?.dependsOn).toEqual([
      `${system}.divergence.w${seed}.A.swap.c1.probe.1`,
      `${system}.divergence.w${seed}.B.swap.c1.update.0`,
    ]);
  });

  it('shows every call the notebook the sequential executor showed, with the same request IDs and nonces', async () => {
    const calls = await executedCalls();
    const planned = new Map(requests.map((request) => [request.requestId, request]));
    expect(calls.map((call) => call.requestId).sort()).toEqual([...planned.keys()].sort());
    // Fold the logged replies through the plan: keys, per-request notebooks, sources.
    const byKey = new Map<string, string>();
    const byRequest = new Map<string, string>();
    for (const call of calls) {
      const request = planned.get(call.requestId);
      if (request === undefined) throw new Error(`unplanned ${call.requestId}`);
      expect(call.nonce).toBe(request.nonce);
      const key = request.blockId;
      const source = request.notebookSource;
      const shown =
        source === undefined
          ? (byKey.get(key) ?? '')
          : source.kind === 'empty'
            ? ''
            : source.kind === 'corrupted'
              ? corruptedNotebook(byRequest.get(source.requestId) ?? '')
              : (byRequest.get(source.requestId) ?? '');
      expect(sha256Hex(shown), call.requestId).toBe(call.notesShownSha256);
      if (request.writesNotebook) {
        const text = applyNotebookCap(call.result.text ?? '', manifest.notebookCapBytes).text;
        byKey.set(key, text);
        byRequest.set(call.requestId, text);
      }
    }
  });
});
