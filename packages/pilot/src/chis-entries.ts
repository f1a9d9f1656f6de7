import { mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { applyNotebookCap, readHistoryProbe } from '@chi/experiments/internal';
import { createJsonlWriter } from '@chi/run';
import { usableReply } from '@chi/run/internal';
import { checkpointAccuracy } from '@chi/scoring';
import { decisionVector } from '@chi/scoring/internal';
import {
  type ChatResult,
  type ChisEntry,
  ChisEntrySchema,
  type HistoryWorld,
  type PlannedRequest,
  type RunManifest,
  type RunPlan,
} from '@chi/spec';
import { HISTORY_IDS } from '@chi/spec/internal';
import type { RunPaths } from './run-folder/run-folder';

/**
 * The condition of each history checkpoint as a CHIS entry names it: the event processed to reach
 * the checkpoint (docs/protocol.md, CHIS "Condition semantics").
 */
export const CHECKPOINT_CONDITIONS = [
  'baseline',
  'history',
  'neutral',
  'neutral',
  'correction',
] as const;

/**
 * The CHIS entries of every history trajectory (system x world x history), one per checkpoint:
 * task indicators (accuracy, explicit-unknown and invalid rates), the decision vector (A = 0,
 * unknown = 0.5, B = 1, invalid = null), the notebook state descriptor and the resources spent
 * since the previous checkpoint. CHI is null throughout: the pilot has no human calibration.
 *
 * The framework's three clocks stay apart: `eventCount` counts the experiences ingested (the
 * notebook updates, one per checkpoint after the baseline; read-only probe clones are not
 * events), `scheduledOperations` counts every model invocation scheduled so far (updates and
 * probes), and `elapsedWallMs` is wall time since the trajectory's first request.
 *
 * Decisions come from `readHistoryProbe` of `@chi/report`, the reading the release's scores and
 * traces use: a probe that failed in any class gives invalid decisions, never a parsed text.
 *
 * Only trajectories whose every request resolved are written (a partial trajectory is not a
 * CHIS sequence; its observations stay in the run folder).
 */
export function chisEntriesFor(args: {
  manifest: RunManifest;
  plan: RunPlan;
  historyWorlds: ReadonlyMap<number, HistoryWorld>;
  results: ReadonlyMap<string, ChatResult>;
}): ChisEntry[] {
  const { manifest, plan, historyWorlds, results } = args;
  const byId = new Map(plan.requests.map((request) => [request.requestId, request]));
  const entries: ChisEntry[] = [];
  for (const system of manifest.systems) {
    const capBytes = system.uncappedNotebook === true ? null : manifest.notebookCapBytes;
    for (const seed of manifest.worldSeeds) {
      const world = historyWorlds.get(seed);
      if (world === undefined) continue;
      const unit = `history.w${seed}`;
      for (const history of HISTORY_IDS) {
        const requestOf = (
          checkpoint: number,
          step: 'probe' | 'update',
        ): PlannedRequest | undefined =>
          byId.get(`${system.id}.${unit}.${history}.c${checkpoint}.${step}`);
        const trajectory: PlannedRequest[] = [];
        for (let checkpoint = 0; checkpoint <= 4; checkpoint++) {
          const update = requestOf(checkpoint, 'update');
          if (update !== undefined) trajectory.push(update);
          const probe = requestOf(checkpoint, 'probe');
          if (probe !== undefined) trajectory.push(probe);
        }
        if (
          trajectory.length === 0 ||
          trajectory.some((request) => !results.has(request.requestId))
        )
          continue;
        const firstStart = Date.parse(
          (results.get(trajectory[0]?.requestId ?? '') as ChatResult).startedAt,
        );
        let events = 0;
        let operations = 0;
        let notes = applyNotebookCap('', capBytes);
        for (let checkpoint = 0; checkpoint <= 4; checkpoint++) {
          const update = requestOf(checkpoint, 'update');
          const probe = requestOf(checkpoint, 'probe') as PlannedRequest;
          const spent = [update, probe].flatMap((request) =>
            request === undefined ? [] : [results.get(request.requestId) as ChatResult],
          );
          if (update !== undefined) {
            const updateResult = results.get(update.requestId) as ChatResult;
            notes = applyNotebookCap(updateResult.text ?? '', capBytes);
            events += 1;
          }
          operations += spent.length;
          const probeResult = results.get(probe.requestId) as ChatResult;
          const { decisions } = readHistoryProbe(
            usableReply({ kind: 'resolved', result: probeResult }),
            world.environments.map((environment) => environment.id),
            world,
          );
          const valid = world.validAnswers[history][checkpoint] ?? [];
          const accuracy = checkpointAccuracy([...decisions], valid);
          const vector = decisionVector(decisions);
          const sum = (pick: (result: ChatResult) => number | null): number | null => {
            let total = 0;
            for (const result of spent) {
              const value = pick(result);
              if (value === null) return null;
              total += value;
            }
            return total;
          };
          entries.push(
            ChisEntrySchema.parse({
              kind: 'chis-entry',
              trajectoryId: `${system.id}.${unit}.${history}`,
              systemId: system.id,
              evidenceClass: system.evidenceClass,
              worldSeed: seed,
              history,
              checkpoint,
              condition: CHECKPOINT_CONDITIONS[checkpoint],
              recordedAt: probeResult.finishedAt,
              eventCount: events,
              scheduledOperations: operations,
              elapsedWallMs: Math.max(0, Date.parse(probeResult.finishedAt) - firstStart),
              profile: {
                accuracy: accuracy.accuracy.rate,
                explicitUnknownRate: accuracy.explicitUnknownRate.rate,
                invalidRate: accuracy.invalidRate.rate,
              },
              decisionVector: vector.coordinates,
              chi: null,
              state: {
                sha256: notes.sha256,
                bytes: notes.bytes,
                originalBytes: notes.originalBytes,
                truncated: notes.truncated,
              },
              resources: {
                requests: spent.length,
                promptTokens: sum((result) => result.usage.promptTokens),
                completionTokens: sum((result) => result.usage.completionTokens),
                costUsd: sum((result) => result.chargedUsd),
                latencyMs: sum((result) => result.latencyMs),
              },
            }),
          );
        }
      }
    }
  }
  return entries;
}

/** Rewrites `chis/<systemId>.jsonl` of a run folder from its entries (derived data). */
export async function writeChisEntries(
  paths: RunPaths,
  manifest: RunManifest,
  entries: readonly ChisEntry[],
): Promise<void> {
  mkdirSync(paths.chisDir, { recursive: true });
  for (const system of manifest.systems) {
    const path = paths.chis(system.id);
    await rm(path, { force: true });
    const own = entries.filter((entry) => entry.systemId === system.id);
    if (own.length === 0) continue;
    const writer = await createJsonlWriter({ path, schema: ChisEntrySchema, fsync: 'on-flush' });
    for (const entry of own) await writer.append(entry);
    await writer.close();
  }
}
