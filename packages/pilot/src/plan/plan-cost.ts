import { requestInputBytes, reservationUsd } from '@chi/openrouter';
import type { ModelCatalog, RunManifest, SystemSpec } from '@chi/spec';
import type { PlannedRun } from '../run-folder/run-create';
import {
  emptyWorldMaps,
  generateSeedWorlds,
  type RunWorldMaps,
  type RunWorlds,
} from '../run-folder/run-worlds';
import { renderPlannedRequest } from './render-planned';

/** Requests and worst-case reserved USD of one system. */
export interface SystemPlanCost {
  readonly systemId: string;
  readonly model: string;
  readonly kind: SystemSpec['kind'];
  readonly requests: number;
  /** Sum over requests of one try's reservation with worst-case notes. */
  readonly worstCaseUsd: number;
  /** The same if every request also used every allowed retry and each try's reservation were kept. */
  readonly worstCaseWithRetriesUsd: number;
  /** Where the price came from. */
  readonly priceSource:
    | 'catalog and safety price (larger)'
    | 'safety price'
    | 'free (scripted)'
    | 'no price declared (the ceiling cannot bound it)';
}

/** The cost plan of a whole run, for `chi pilot --plan`. */
export interface RunPlanCost {
  readonly systems: readonly SystemPlanCost[];
  readonly totalRequests: number;
  readonly worstCaseUsd: number;
  readonly worstCaseWithRetriesUsd: number;
  /** The notes assumed for requests that read a notebook. */
  readonly notesAssumption: string;
}

/**
 * Worst-case notes for the reservation bound: `capBytes` bytes of U+0001, the character whose
 * escaping grows most when the notes are put in a JSON block and the messages are serialized
 * (7 bytes each), so no notebook of the cap can make a real request reserve more.
 */
export function worstCaseNotes(capBytes: number): string {
  return '\u0001'.repeat(capBytes);
}

/**
 * The worlds of a request's world seed, generated when a request of another seed first asks and
 * dropped when the next seed's are generated (the plan lists a world seed's requests together),
 * so pricing a run holds one world seed's worlds at a time.
 */
export function seedWorldsSource(manifest: RunManifest): (seed: number) => RunWorlds {
  let held: { seed: number; worlds: RunWorldMaps } | null = null;
  return (seed) => {
    if (held?.seed !== seed) {
      held = { seed, worlds: emptyWorldMaps() };
      generateSeedWorlds(manifest, seed, held.worlds);
    }
    return held.worlds;
  };
}

/**
 * Counts the registered requests of every system and bounds what their reservations can sum to,
 * without sending anything: each request is rendered with worst-case notes and priced with the
 * larger of the catalog price (when given) and the system's safety price, the output cap and the
 * margin, exactly as the transport reserves before each try.
 */
export function planCost(prepared: PlannedRun, catalog?: ModelCatalog): RunPlanCost {
  const { manifest } = prepared.frozen;
  const worldsOf = seedWorldsSource(manifest);
  const notes = worstCaseNotes(manifest.notebookCapBytes);
  const perSystem = new Map<string, { requests: number; usd: number }>();
  const systems = new Map(manifest.systems.map((system) => [system.id, system]));
  const tries = 1 + manifest.retry.maxRetries;
  for (const request of prepared.plan.requests) {
    const system = systems.get(request.systemId) as SystemSpec;
    const entry = perSystem.get(system.id) ?? { requests: 0, usd: 0 };
    entry.requests += 1;
    const catalogPrice =
      catalog?.models.find((model) => model.model === system.model)?.price ?? null;
    if (system.kind !== 'scripted' && (catalogPrice !== null || system.safetyPrice !== null)) {
      const rendered = renderPlannedRequest({
        request,
        manifest,
        worlds: worldsOf(request.worldSeed),
        prompts: prepared.prompts,
        notes: () => notes,
      });
      entry.usd += reservationUsd({
        inputBytes: requestInputBytes(rendered.messages),
        maxOutputTokens: system.maxOutputTokens,
        catalogPrice,
        safetyPrice: system.safetyPrice,
        marginRatio: manifest.reservationMargin,
      });
    }
    perSystem.set(system.id, entry);
  }
  const rows: SystemPlanCost[] = manifest.systems.map((system) => {
    const entry = perSystem.get(system.id) ?? { requests: 0, usd: 0 };
    const inCatalog = catalog?.models.some((model) => model.model === system.model) === true;
    return {
      systemId: system.id,
      model: system.model,
      kind: system.kind,
      requests: entry.requests,
      worstCaseUsd: roundUsd(entry.usd),
      worstCaseWithRetriesUsd: roundUsd(entry.usd * tries),
      priceSource:
        system.kind === 'scripted'
          ? 'free (scripted)'
          : inCatalog
            ? 'catalog and safety price (larger)'
            : system.safetyPrice === null
              ? 'no price declared (the ceiling cannot bound it)'
              : 'safety price',
    };
  });
  return {
    systems: rows,
    totalRequests: prepared.plan.requests.length,
    worstCaseUsd: roundUsd(rows.reduce((sum, row) => sum + row.worstCaseUsd, 0)),
    worstCaseWithRetriesUsd: roundUsd(
      rows.reduce((sum, row) => sum + row.worstCaseWithRetriesUsd, 0),
    ),
    notesAssumption: `every notebook read is ${manifest.notebookCapBytes} bytes of the worst-escaping character`,
  };
}

function roundUsd(amount: number): number {
  return Math.ceil(amount * 1e6) / 1e6;
}

const UNPRICED: SystemPlanCost['priceSource'] = 'no price declared (the ceiling cannot bound it)';

/**
 * A worst-case amount as the plan prints it: `unbounded` when no price bounds it (an unpriced
 * model's requests reserve nothing, so its summed 0 would read as "free"), else 4 decimals.
 */
function planUsdCell(usd: number, bounded: boolean): string {
  return bounded ? usd.toFixed(4) : 'unbounded';
}

/** The `--plan` table as text; `ceilingUsd` is null when none was given. */
export function formatPlanCost(cost: RunPlanCost, ceilingUsd: number | null): string {
  const allBounded = cost.systems.every((row) => row.priceSource !== UNPRICED);
  const lines = [
    'system              model                              requests   worst case USD   with all retries',
    ...cost.systems.map((row) => {
      const bounded = row.priceSource !== UNPRICED;
      return `${row.systemId.padEnd(19)} ${row.model.padEnd(34)} ${String(row.requests).padStart(8)}   ${planUsdCell(row.worstCaseUsd, bounded).padStart(14)}   ${planUsdCell(row.worstCaseWithRetriesUsd, bounded).padStart(16)}`;
    }),
    `${'total'.padEnd(19)} ${''.padEnd(34)} ${String(cost.totalRequests).padStart(8)}   ${planUsdCell(cost.worstCaseUsd, allBounded).padStart(14)}   ${planUsdCell(cost.worstCaseWithRetriesUsd, allBounded).padStart(16)}`,
    '',
    `Assumes ${cost.notesAssumption}; prices: ${[...new Set(cost.systems.map((row) => row.priceSource))].join('; ')}.`,
    ceilingUsd === null
      ? 'No ceiling given: a live run needs --ceiling-usd X (it stops cleanly at the ceiling; choose at least the worst case to finish every block).'
      : `Ceiling given: ${ceilingUsd} USD. A run stops cleanly at the ceiling; choose a ceiling of at least the worst case to finish every block.`,
    ...cost.systems
      .filter((row) => row.priceSource === UNPRICED)
      .map(
        (row) =>
          `WARNING: no price is declared for ${row.model}: its worst case is unknown and the ceiling cannot protect spend on it (declare --price or --prices, or accept with --accept-unbounded-spend).`,
      ),
  ];
  return lines.join('\n');
}
