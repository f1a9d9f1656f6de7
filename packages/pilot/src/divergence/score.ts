import type { DivergenceManifest } from '@chi/experiments/internal';
import type { ChisEntry } from '@chi/spec';
import type { DivergenceCallRecord } from './calls';

/**
 * The CHIS entries of a divergence run, one per probe, assembled from the call records alone
 * (the release and `chi verify` both use this): what `divergenceScorer` read of each probe (the
 * decision vector of the four primary choices; accuracy, explicit-unknown and invalid rates on
 * them against the warranted answers; `washoutKnown`, the share of the washout choices answered
 * with the option the common evidence favors, the memory-accumulation indicator; its
 * trajectory's counters) with the system's evidence class and the notebook after the probe.
 * `chi` is null: no human calibration exists.
 */
export function divergenceEntries(
  manifest: Pick<DivergenceManifest, 'systems'>,
  calls: readonly DivergenceCallRecord[],
): ChisEntry[] {
  const evidenceClass = new Map(
    manifest.systems.map((system) => [system.id, system.evidenceClass]),
  );
  return calls.flatMap((call): ChisEntry[] => {
    const probe = call.probe;
    if (probe === null) return [];
    return [
      {
        kind: 'chis-entry',
        trajectoryId: `${call.systemId}.divergence.w${call.worldSeed}.${call.arm}`,
        systemId: call.systemId,
        evidenceClass: evidenceClass.get(call.systemId) ?? 'scripted_baseline',
        worldSeed: call.worldSeed,
        history: call.arm,
        checkpoint: call.checkpoint,
        condition: call.condition ?? 'probe',
        recordedAt: call.result.finishedAt,
        eventCount: probe.eventCount,
        scheduledOperations: probe.scheduledOperations,
        elapsedWallMs: probe.elapsedWallMs,
        profile: {
          accuracy: probe.accuracy,
          unknownRate: probe.unknownRate,
          invalidRate: probe.invalidRate,
          washoutKnown: probe.washoutKnown,
        },
        decisionVector: [...probe.decisionVector],
        chi: null,
        state: {
          sha256: call.notebookAfter.sha256,
          bytes: call.notebookAfter.bytes,
          originalBytes: call.notebookAfter.bytes,
          truncated: false,
        },
        resources: {
          requests: probe.requests,
          promptTokens: null,
          completionTokens: null,
          costUsd: probe.costUsd,
          latencyMs: null,
        },
      },
    ];
  });
}
