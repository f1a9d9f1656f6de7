import { apiKeyFromEnv } from '@chi/openrouter';
import type { ModelCatalog, StudyDeclaration, StudySystem, SystemSpec } from '@chi/spec';
import { modelArgument } from '../cli/cli-args';
import { UsageError } from '../cli/usage-error';
import {
  declaredEndpointSystems,
  fetchLiveCatalog,
  isUnpricedEndpoint,
  probeEndpoint,
} from '../endpoints/live-endpoints';
import { isMemoryReference, memoryReferenceSpec } from '../memory-systems/reference-systems';
import { perTokenPrice } from '../plan/declared-prices';
import { scriptedSystemSpec } from '../scripted/scripted-systems';
import {
  OPENROUTER_KEY_ENV,
  openAiCompatibleSystemSpec,
  openRouterSystemSpec,
  systemIdFor,
} from '../settings';

/** What resolving a live study's systems reads: keys from the environment only, never written. */
export interface StudyLiveContext {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Injectable fetch (tests). */
  readonly fetch?: typeof globalThis.fetch;
  /** Where a warning goes (an endpoint run without a declared price). */
  readonly warn?: (line: string) => void;
}

/** The ID of a study system: a scripted system's name, or a live system's `id` or model name. */
export function studySystemId(system: StudySystem): string {
  if (typeof system === 'string') return system;
  return system.id ?? systemIdFor(modelArgument(system.model).model);
}

/** The IDs of a study's systems, in the study file's order. */
export function studySystemIds(study: Pick<StudyDeclaration, 'systems'>): string[] {
  return study.systems.map(studySystemId);
}

/** Whether a study declares a live system (an object in `systems`). */
export function hasLiveSystems(study: Pick<StudyDeclaration, 'systems'>): boolean {
  return study.systems.some((system) => typeof system !== 'string');
}

/**
 * The manifest entry of one study system as declared, built as `chi pilot` builds it: a scripted
 * system (a reference memory system keeps its own memory), an OpenRouter model with its allowlist
 * (`openRouterSystemSpec`) or an endpoint's model (`openAiCompatibleSystemSpec`), with its
 * declared price and memory policy. An endpoint is not probed here ({@link resolveStudySystems}).
 */
export function declaredStudySystem(system: StudySystem): SystemSpec {
  if (typeof system === 'string')
    return isMemoryReference(system) ? memoryReferenceSpec(system) : scriptedSystemSpec(system);
  const { model, providers } = modelArgument(system.model);
  const price = system.price === undefined ? undefined : perTokenPrice(system.price);
  const id = studySystemId(system);
  const spec =
    system.baseUrl === undefined
      ? openRouterSystemSpec({
          id,
          model,
          providers,
          ...(price === undefined ? {} : { safetyPrice: price }),
        })
      : openAiCompatibleSystemSpec({
          id,
          model,
          baseUrl: system.baseUrl,
          safetyPrice: price ?? null,
        });
  return system.memory === 'system' ? { ...spec, memory: 'system' } : spec;
}

/**
 * Refuses two systems with one ID (two live models whose names end alike, `a/m@x` and `b/m@y`,
 * both default to `m`) before anything is frozen, naming the second and asking for an `id`.
 */
export function checkDistinctIds(study: Pick<StudyDeclaration, 'systems'>, what: string): void {
  const ids = studySystemIds(study);
  const twice = ids.findIndex((id, index) => ids.indexOf(id) !== index);
  if (twice >= 0)
    throw new UsageError(
      `${what}: systems[${twice}]: its system ID ${JSON.stringify(ids[twice])} is also systems[${ids.indexOf(ids[twice] as string)}]'s; give one of them an "id"`,
    );
}

/**
 * Refuses an endpoint model without a declared price unless its entry accepts that the ceilings
 * cannot bound it (`acceptUnboundedSpend`), naming the field; a scripted baseline served by `chi
 * serve` is free and needs none.
 */
function checkUnboundedSpend(
  study: StudyDeclaration,
  systems: readonly SystemSpec[],
  what: string,
  warn: (line: string) => void,
): void {
  systems.forEach((system, index) => {
    const declared = study.systems[index];
    if (typeof declared === 'string' || declared === undefined || !isUnpricedEndpoint(system))
      return;
    if (declared.acceptUnboundedSpend !== true)
      throw new UsageError(
        `${what}: systems[${index}].price: no price is declared for ${system.model} at ${system.baseUrl}: the study's USD ceilings cannot protect spend on this endpoint. Declare systems[${index}].price, or set systems[${index}].acceptUnboundedSpend to true`,
      );
    warn(
      `chi: WARNING: no price declared for ${system.model} (systems[${index}].acceptUnboundedSpend): the ceilings do not bound its spend; reported costs are recorded`,
    );
  });
}

/**
 * The systems of a study as its manifest freezes them before the first scored request (with the
 * catalog prices of its OpenRouter models), resolved as `chi pilot` resolves a live run's: each
 * endpoint probed (a `chi serve` scripted system labelled a scripted baseline and free, its
 * declared memory and instance-control carried), an endpoint model without a declared price
 * refused unless accepted, and the OpenRouter catalog fetched with the key read from the
 * environment only (`OPENROUTER_API_KEY`). A scripted study resolves to its declared systems.
 */
export async function resolveStudySystems(
  study: StudyDeclaration,
  context: StudyLiveContext,
  what: string,
): Promise<{ readonly systems: SystemSpec[]; readonly catalog: ModelCatalog | undefined }> {
  checkDistinctIds(study, what);
  let systems = study.systems.map(declaredStudySystem);
  const urls = [
    ...new Set(
      systems.flatMap((s) =>
        s.kind === 'openai-compatible' && s.baseUrl !== null ? [s.baseUrl] : [],
      ),
    ),
  ];
  for (const url of urls) {
    const index = systems.findIndex((system) => system.baseUrl === url);
    const served = await probeEndpoint(url, context.fetch, `${what}: systems[${index}].baseUrl`);
    const declared = declaredEndpointSystems(systems, served, context.env);
    systems = systems.map((system, at) =>
      system.baseUrl === url ? (declared[at] as SystemSpec) : system,
    );
  }
  checkUnboundedSpend(study, systems, what, context.warn ?? (() => {}));
  if (!systems.some((system) => system.kind === 'openrouter'))
    return { systems, catalog: undefined };
  const apiKey = apiKeyFromEnv(OPENROUTER_KEY_ENV, context.env);
  return { systems, catalog: await fetchLiveCatalog(systems, apiKey, context.fetch) };
}
