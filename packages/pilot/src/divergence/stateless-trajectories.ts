import type { DivergenceManifest } from '@chi/experiments/internal';
import { armCalls, divergenceManifestOf } from '@chi/experiments/internal';
import type { ChisEntry } from '@chi/spec';
import { planRun } from '../run-folder/run-create';
import { DIVERGENCE_REGISTRY, divergenceSettings } from './run';
import { divergenceSystemSpec } from './scripted-divergence';

// The stateless system's trajectories drawn directly with its declared law (every decision a fair
// coin, independently per instance and probe; docs/protocol.md), so that tests run the analysis
// on many world-seed sets in seconds instead of running the protocol each time. Test support:
// the entries are CHIS entries as the protocol writes them, with the coins from mulberry32.

/** The divergence manifest of a stateless-only run of `worlds` worlds (one resample). */
export function statelessManifest(worlds: number): DivergenceManifest {
  return divergenceManifestOf(
    planRun({
      settings: divergenceSettings(worlds, {
        resamples: 1,
        systems: [divergenceSystemSpec('stateless', 1)],
      }),
      experiments: DIVERGENCE_REGISTRY,
    }).frozen.manifest,
  );
}

/** mulberry32: a small seeded generator for the coins. */
function coins(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0 < 2 ** 31 ? 0 : 1;
  };
}

/** The stateless system's CHIS entries for every arm and probe of `manifest` in each world. */
export function statelessEntries(
  manifest: DivergenceManifest,
  worldSeeds: readonly number[],
  seed: number,
): ChisEntry[] {
  const coin = coins(seed);
  const entries: ChisEntry[] = [];
  for (const worldSeed of worldSeeds)
    for (const arm of manifest.arms) {
      let events = 0;
      for (const call of armCalls(arm)) {
        if (call.role === 'update') events += 1;
        if (call.role !== 'probe') continue;
        const washout = [coin(), coin(), coin()];
        entries.push({
          kind: 'chis-entry',
          trajectoryId: `stateless.divergence.w${worldSeed}.${arm.id}`,
          systemId: 'stateless',
          evidenceClass: 'scripted_baseline',
          worldSeed,
          history: arm.id,
          checkpoint: call.checkpoint,
          condition: call.condition ?? 'probe',
          recordedAt: '2026-09-01T00:00:00.000Z',
          eventCount: events,
          scheduledOperations: events,
          elapsedWallMs: 0,
          profile: { washoutKnown: washout.reduce((a, b) => a + b, 0) / 3 },
          decisionVector: [coin(), coin(), coin(), coin()],
          chi: null,
          state: { sha256: 'a'.repeat(64), bytes: 0, originalBytes: 0, truncated: false },
          resources: {
            requests: 1,
            promptTokens: null,
            completionTokens: null,
            costUsd: 0,
            latencyMs: null,
          },
        });
      }
    }
  return entries;
}
