import { requestInputBytes, reservationUsd } from '@chi/openrouter';
import { requestNonce } from '../plan';
import { worstCaseNotes } from '../plan-cost';
import type { PromptSet } from '../prompts';
import { renderHistoryProbe, renderHistoryUpdate } from '../render-requests';
import { DEFAULT_SAFETY_PRICE } from '../settings';
import type { DivergenceManifest } from './manifest';
import { armCalls } from './protocol';
import { buildDivergenceWorld } from './world';

/** What `chi pilot --protocol divergence-v0.1 --plan` prints. */
export interface DivergencePlanCost {
  readonly requestsPerWorldPerSystem: number;
  readonly totalRequests: number;
  readonly perSystem: readonly {
    readonly systemId: string;
    readonly requests: number;
    /** 0 for a scripted system (free). */
    readonly worstCaseUsd: number;
  }[];
  /**
   * Worst case for ONE live model over the same plan, at the pilot's declared safety price
   * (5 / 25 USD per million input / output tokens), 4096 output tokens, 25 % margin, every
   * notebook read at the cap in the worst-escaping character; one try per request.
   */
  readonly liveModelWorstCaseUsd: number;
  /** The same with every allowed retry (2) used. */
  readonly liveModelWorstCaseWithRetriesUsd: number;
}

const LIVE_OUTPUT_CAP = 4096;
const LIVE_MARGIN = 0.25;
const LIVE_TRIES = 3;

/** Prices the plan without sending anything (pure apart from the prompt set). */
export function divergencePlanCost(
  manifest: DivergenceManifest,
  prompts: PromptSet,
): DivergencePlanCost {
  const notes = worstCaseNotes(manifest.notebookCapBytes);
  let liveUsd = 0;
  for (const worldSeed of manifest.worldSeeds) {
    const world = buildDivergenceWorld(worldSeed);
    for (const arm of manifest.arms) {
      for (const [index, call] of armCalls(arm).entries()) {
        const nonce = requestNonce(worldSeed, 'divergence', `c${call.checkpoint}.${index}`);
        const evidence = [...world.exposure.A, ...world.exposure.B];
        const rendered =
          call.role === 'probe'
            ? renderHistoryProbe(prompts, { environments: world.panel, notes, nonce })
            : renderHistoryUpdate(prompts, {
                environments: world.panel,
                notes,
                // The largest event any update carries: both exposures' evidence.
                step: { checkpoint: call.checkpoint, kind: 'ingest', evidence },
                nonce,
                notebookCapBytes: manifest.notebookCapBytes,
              });
        liveUsd += reservationUsd({
          inputBytes: requestInputBytes(rendered.messages),
          maxOutputTokens: LIVE_OUTPUT_CAP,
          catalogPrice: null,
          safetyPrice: DEFAULT_SAFETY_PRICE,
          marginRatio: LIVE_MARGIN,
        });
      }
    }
  }
  const perSystemRequests = manifest.requestsPerWorldPerSystem * manifest.worldSeeds.length;
  const round = (usd: number) => Math.ceil(usd * 1e6) / 1e6;
  return {
    requestsPerWorldPerSystem: manifest.requestsPerWorldPerSystem,
    totalRequests: manifest.totalRequests,
    perSystem: manifest.systems.map((system) => ({
      systemId: system.id,
      requests: perSystemRequests,
      worstCaseUsd: 0,
    })),
    liveModelWorstCaseUsd: round(liveUsd),
    liveModelWorstCaseWithRetriesUsd: round(liveUsd * LIVE_TRIES),
  };
}

/** The `--plan` text. */
export function formatDivergencePlan(
  manifest: DivergenceManifest,
  cost: DivergencePlanCost,
): string {
  const lines = [
    `protocol ${manifest.protocol}: ${manifest.worldSeeds.length} world(s), ${manifest.arms.length} arms per world and system`,
    `checkpoints ${manifest.checkpoints.map((c) => `${c.checkpoint}:${c.phase}`).join(' ')}; primary checkpoint ${manifest.primaryCheckpoint} (frozen in the manifest)`,
    `arms: ${manifest.arms.map((arm) => arm.id).join(', ')}`,
    `requests per world and system: ${cost.requestsPerWorldPerSystem}`,
    ...cost.perSystem.map(
      (row) =>
        `  ${row.systemId}: ${row.requests} requests, worst case ${row.worstCaseUsd.toFixed(6)} USD (scripted baseline: free)`,
    ),
    `total requests: ${cost.totalRequests}`,
    `one live model over this plan at the declared safety price: worst case ${cost.liveModelWorstCaseUsd.toFixed(6)} USD, ${cost.liveModelWorstCaseWithRetriesUsd.toFixed(6)} USD with every retry (live runs of this protocol are not built yet)`,
  ];
  return `${lines.join('\n')}\n`;
}
