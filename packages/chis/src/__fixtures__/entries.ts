import type { ChisEntry } from '@chi/spec';

/** Fields a test usually sets; everything else gets a valid default. */
export interface EntrySpec {
  readonly checkpoint: number;
  readonly condition: string;
  readonly decisionVector?: (number | null)[] | null;
  readonly profile?: Record<string, number | null>;
  readonly eventCount?: number;
  readonly history?: string | null;
  readonly worldSeed?: number | null;
  readonly systemId?: string;
}

/** A valid CHIS entry of a hand-built fixture trajectory (evidence class `fixture`). */
export function makeEntry(trajectoryId: string, spec: EntrySpec): ChisEntry {
  const eventCount = spec.eventCount ?? spec.checkpoint * 2;
  return {
    kind: 'chis-entry',
    trajectoryId,
    systemId: spec.systemId ?? 'scripted-fixture',
    evidenceClass: 'fixture',
    worldSeed: spec.worldSeed === undefined ? 1 : spec.worldSeed,
    history: spec.history === undefined ? null : spec.history,
    checkpoint: spec.checkpoint,
    condition: spec.condition,
    recordedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, 0) + spec.checkpoint * 60_000).toISOString(),
    eventCount,
    scheduledOperations: spec.checkpoint,
    elapsedWallMs: spec.checkpoint * 60_000,
    profile: spec.profile ?? {},
    decisionVector: spec.decisionVector === undefined ? null : spec.decisionVector,
    chi: null,
    state: {
      sha256: 'a'.repeat(64),
      bytes: 120 + spec.checkpoint,
      originalBytes: 120 + spec.checkpoint,
      truncated: false,
    },
    resources: { requests: 1, promptTokens: 500, completionTokens: 80, costUsd: 0.0012, latencyMs: 850 },
  };
}

/** A trajectory from specs, in the given order. */
export function makeTrajectory(trajectoryId: string, specs: readonly EntrySpec[]): ChisEntry[] {
  return specs.map((spec) => makeEntry(trajectoryId, spec));
}
