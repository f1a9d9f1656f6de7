import { fetchCatalog } from '@chi/openrouter';
import type { ModelCatalog, SystemSpec } from '@chi/spec';
import { UsageError } from '../cli/usage-error';
import {
  type ServedScriptedModel,
  servedScriptedModels,
  withServedDeclarations,
} from './endpoint-models';

/**
 * The catalog prices of the OpenRouter systems among `systems` (undefined when there are none),
 * fetched with the key read from the environment only.
 */
export async function fetchLiveCatalog(
  systems: readonly SystemSpec[],
  apiKey: string | undefined,
  fetch: typeof globalThis.fetch | undefined,
): Promise<ModelCatalog | undefined> {
  const openRouter = systems.filter((system) => system.kind === 'openrouter');
  if (openRouter.length === 0) return undefined;
  return fetchCatalog({
    models: openRouter.map((system) => ({
      model: system.model,
      providers: system.providers,
      maxOutputTokens: system.maxOutputTokens,
    })),
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(fetch === undefined ? {} : { fetch }),
  });
}

/**
 * Checks that an OpenAI-compatible endpoint answers, and returns the models it serves that are
 * scripted reference systems (`chi serve` marks them `owned_by: chi-scripted` and declares their
 * manifest facts), so their results are labelled `scripted_baseline`, never as a model
 * measurement, and carry the same declared reference condition as in process. `field` names the
 * option or file field the URL came from (`--base-url`, `study.json: systems[0].baseUrl`).
 */
export async function probeEndpoint(
  baseUrl: string,
  fetch: typeof globalThis.fetch | undefined,
  field = '--base-url',
): Promise<Map<string, ServedScriptedModel>> {
  const doFetch = fetch ?? globalThis.fetch;
  let response: Response;
  try {
    response = await doFetch(`${baseUrl.replace(/\/+$/, '')}/models`, {
      signal: AbortSignal.timeout(10_000),
    });
  } catch (error) {
    const cause = (error as Error).cause;
    throw new UsageError(
      `${field}: ${baseUrl} is unreachable (${cause instanceof Error ? cause.message : (error as Error).message})`,
    );
  }
  try {
    return servedScriptedModels(await response.json());
  } catch {
    // a server without a model list is fine
    return new Map();
  }
}

/**
 * An endpoint system as its first session reaches it: keyed by the variable it names when that
 * variable is set, keyless (`apiKeyEnv: null`) when it is not. A resume then needs exactly the
 * key the run started with and never sends without it.
 */
export function withKeyAsStarted(
  system: SystemSpec,
  env: Readonly<Record<string, string | undefined>>,
): SystemSpec {
  const variable = system.kind === 'openai-compatible' ? system.apiKeyEnv : undefined;
  if (typeof variable !== 'string' || (env[variable]?.trim() ?? '') !== '') return system;
  return { ...system, apiKeyEnv: null };
}

/**
 * The endpoint systems as a probe of their endpoint declares them (`withServedDeclarations`): a
 * scripted system served by `chi serve` is labelled a scripted baseline and free when no price
 * was declared; each keyed as its first session reaches it ({@link withKeyAsStarted}).
 */
export function declaredEndpointSystems(
  systems: readonly SystemSpec[],
  served: ReadonlyMap<string, ServedScriptedModel>,
  env: Readonly<Record<string, string | undefined>>,
): SystemSpec[] {
  return withServedDeclarations(systems, served)
    .map((system) =>
      // a scripted system served by chi serve is free
      system.evidenceClass === 'scripted_baseline' && system.safetyPrice === null
        ? { ...system, safetyPrice: { inputUsdPerToken: 0, outputUsdPerToken: 0, requestUsd: 0 } }
        : system,
    )
    .map((system) => withKeyAsStarted(system, env));
}

/**
 * Whether the USD ceiling cannot bound a system's spend: an endpoint model without a declared
 * price. A scripted baseline served by `chi serve` is free and needs none. `chi pilot` and
 * `chi study` refuse such a system unless the user accepts it (`--accept-unbounded-spend`,
 * `systems[i].acceptUnboundedSpend`).
 */
export function isUnpricedEndpoint(system: SystemSpec): boolean {
  return (
    system.kind === 'openai-compatible' &&
    system.safetyPrice === null &&
    system.evidenceClass !== 'scripted_baseline'
  );
}
