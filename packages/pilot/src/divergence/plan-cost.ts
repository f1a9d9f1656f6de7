import type { DivergenceManifest } from '@chi/experiments/internal';
import {
  armCalls,
  buildDivergenceWorld,
  renderHistoryProbe,
  renderHistoryUpdate,
} from '@chi/experiments/internal';
import { requestInputBytes, reservationUsd } from '@chi/openrouter';
import type { ModelCatalog, Price, SystemSpec } from '@chi/spec';
import { requestNonce } from '../plan/plan';
import {
  formatPlanCost,
  type RunPlanCost,
  type SystemPlanCost,
  worstCaseNotes,
} from '../plan/plan-cost';
import type { PromptSet } from '../prompts';
import { DEFAULT_SAFETY_PRICE } from '../settings';

/** What `chi pilot --protocol divergence-v0.1 --plan` prints. */
export interface DivergencePlanCost extends RunPlanCost {
  readonly requestsPerWorldPerSystem: number;
  /**
   * Worst case for ONE live model over the same plan at the pilot's declared safety price (5 / 25
   * USD per million input / output tokens), 4096 output tokens, the manifest's margin; one try per
   * request. Printed for a plan of scripted systems only, as a guide before choosing models.
   */
  readonly liveModelWorstCaseUsd: number;
  /** The same with every allowed retry used. */
  readonly liveModelWorstCaseWithRetriesUsd: number;
}

const LIVE_OUTPUT_CAP = 4096;

function roundUsd(usd: number): number {
  return Math.ceil(usd * 1e6) / 1e6;
}

/**
 * The worst-case reservation of one request per planned call of one world and system, summed:
 * every call rendered with worst-case notes (the cap in the worst-escaping character) and, for an
 * update, the largest event any update carries (both exposures' evidence), priced exactly as the
 * transport reserves before each try (`reservationUsd` of `@chi/openrouter`).
 */
function worldWorstCaseUsd(
  manifest: DivergenceManifest,
  prompts: PromptSet,
  worldSeed: number,
  price: { catalogPrice: Price | null; safetyPrice: Price | null; maxOutputTokens: number },
): number {
  const notes = worstCaseNotes(manifest.notebookCapBytes);
  const world = buildDivergenceWorld(worldSeed);
  const evidence = [...world.exposure.A, ...world.exposure.B];
  let usd = 0;
  for (const arm of manifest.arms) {
    for (const [index, call] of armCalls(arm).entries()) {
      const nonce = requestNonce(worldSeed, 'divergence', `c${call.checkpoint}.${index}`);
      const rendered =
        call.role === 'probe'
          ? renderHistoryProbe(prompts, { environments: world.panel, notes, nonce })
          : renderHistoryUpdate(prompts, {
              environments: world.panel,
              notes,
              step: { checkpoint: call.checkpoint, kind: 'ingest', evidence },
              nonce,
              notebookCapBytes: manifest.notebookCapBytes,
            });
      usd += reservationUsd({
        inputBytes: requestInputBytes(rendered.messages),
        maxOutputTokens: price.maxOutputTokens,
        catalogPrice: price.catalogPrice,
        safetyPrice: price.safetyPrice,
        marginRatio: manifest.reservationMargin,
      });
    }
  }
  return usd;
}

function systemRow(
  manifest: DivergenceManifest,
  prompts: PromptSet,
  system: SystemSpec,
  catalog: ModelCatalog | undefined,
): SystemPlanCost {
  const tries = 1 + manifest.retry.maxRetries;
  const catalogPrice = catalog?.models.find((model) => model.model === system.model)?.price ?? null;
  const priced =
    system.kind !== 'scripted' && (catalogPrice !== null || system.safetyPrice !== null);
  const usd = priced
    ? manifest.worldSeeds.reduce(
        (sum, seed) =>
          sum +
          worldWorstCaseUsd(manifest, prompts, seed, {
            catalogPrice,
            safetyPrice: system.safetyPrice,
            maxOutputTokens: system.maxOutputTokens,
          }),
        0,
      )
    : 0;
  return {
    systemId: system.id,
    model: system.model,
    kind: system.kind,
    requests: manifest.requestsPerWorldPerSystem * manifest.worldSeeds.length,
    worstCaseUsd: roundUsd(usd),
    worstCaseWithRetriesUsd: roundUsd(usd * tries),
    priceSource:
      system.kind === 'scripted'
        ? 'free (scripted)'
        : catalogPrice !== null
          ? 'catalog and safety price (larger)'
          : system.safetyPrice === null
            ? 'no price declared (the ceiling cannot bound it)'
            : 'safety price',
  };
}

/**
 * Prices the plan without sending anything: the request count per system and the worst case the
 * ledger can be asked to reserve, per system from its catalog price (when given) and declared
 * safety price, the same bound the default pilot's `--plan` prints (`planCost`).
 */
export function divergencePlanCost(
  manifest: DivergenceManifest,
  prompts: PromptSet,
  catalog?: ModelCatalog,
): DivergencePlanCost {
  const rows = manifest.systems.map((system) => systemRow(manifest, prompts, system, catalog));
  const guide = manifest.worldSeeds.reduce(
    (sum, seed) =>
      sum +
      worldWorstCaseUsd(manifest, prompts, seed, {
        catalogPrice: null,
        safetyPrice: DEFAULT_SAFETY_PRICE,
        maxOutputTokens: LIVE_OUTPUT_CAP,
      }),
    0,
  );
  return {
    systems: rows,
    totalRequests: manifest.totalRequests,
    worstCaseUsd: roundUsd(rows.reduce((sum, row) => sum + row.worstCaseUsd, 0)),
    worstCaseWithRetriesUsd: roundUsd(
      rows.reduce((sum, row) => sum + row.worstCaseWithRetriesUsd, 0),
    ),
    notesAssumption: `every notebook read is ${manifest.notebookCapBytes} bytes of the worst-escaping character; every update carries both exposures' evidence`,
    requestsPerWorldPerSystem: manifest.requestsPerWorldPerSystem,
    liveModelWorstCaseUsd: roundUsd(guide),
    liveModelWorstCaseWithRetriesUsd: roundUsd(guide * (1 + manifest.retry.maxRetries)),
  };
}

/** The `--plan` text: the protocol's schedule, then the default pilot's cost table. */
export function formatDivergencePlan(
  manifest: DivergenceManifest,
  cost: DivergencePlanCost,
  ceilingUsd: number | null = null,
): string {
  const live = manifest.systems.some((system) => system.kind !== 'scripted');
  const lines = [
    `protocol ${manifest.protocol}: ${manifest.worldSeeds.length} world(s), ${manifest.arms.length} arms per world and system`,
    `checkpoints ${manifest.checkpoints.map((c) => `${c.checkpoint}:${c.phase}`).join(' ')}; primary checkpoint ${manifest.primaryCheckpoint} (frozen in the manifest)`,
    `arms: ${manifest.arms.map((arm) => arm.id).join(', ')}`,
    `requests per world and system: ${cost.requestsPerWorldPerSystem}`,
    `total requests: ${cost.totalRequests}`,
    formatPlanCost(cost, live ? ceilingUsd : 0).trimEnd(),
    ...(live
      ? []
      : [
          `one live model over this plan at the declared safety price: worst case ${cost.liveModelWorstCaseUsd.toFixed(6)} USD, ${cost.liveModelWorstCaseWithRetriesUsd.toFixed(6)} USD with every retry (choose models with --live --models or --base-url --models)`,
        ]),
  ];
  return `${lines.join('\n')}\n`;
}
