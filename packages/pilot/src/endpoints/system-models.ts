import type { BuiltInExperiment } from '@chi/experiments';
import {
  catalogEntry,
  createHttpInstanceControl,
  createOpenRouterModel,
  type ReasoningEffort,
} from '@chi/openrouter';
import {
  type BudgetLedger,
  type ChatModel,
  InvalidArgumentError,
  type ModelCatalog,
  type RunManifest,
  type SystemSpec,
} from '@chi/spec';
import { createMemoryReferenceModel, isMemoryReference } from '../memory-systems/reference-systems';
import {
  createImitatorModel,
  imitatorTargetsFromDeclared,
  isImitatorSystem,
} from '../scripted/scripted-imitator';
import { createScriptedModel } from '../scripted/scripted-systems';
import { apiKeyEnvOf, OPENROUTER_KEY_ENV } from '../settings';

/** What building live models needs; nothing here is ever written to the run folder. */
export interface LiveModelContext {
  /**
   * API keys by environment variable name (usually the process environment). A system reads only
   * the variable its manifest entry names (`apiKeyEnv`), so a key never goes to another host.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Shorthand for `env: { OPENROUTER_API_KEY: apiKey }`: only systems that name that variable use it. */
  readonly apiKey?: string;
  /** The ledger every live model reserves with. */
  readonly ledger?: BudgetLedger;
  /** Catalog prices (live OpenRouter runs). */
  readonly catalog?: ModelCatalog;
  /** Injectable fetch (tests). */
  readonly fetch?: typeof globalThis.fetch;
  /** Injectable clock of the live transports (tests that compare published bytes). */
  readonly now?: () => Date;
  /** Injectable monotonic clock of the transports' `latencyMs` (with `now`). */
  readonly elapsedMs?: () => number;
  /**
   * The built-in experiments whose scripted policies the scripted systems answer with (default
   * `BUILT_IN_EXPERIMENTS` of `@chi/experiments`).
   */
  readonly builtIns?: readonly BuiltInExperiment[];
}

/** The manifest fields a live model is built from (the default pilot's and the divergence protocol's). */
export type TransportSettings = Pick<RunManifest, 'deadlineMs' | 'retry' | 'reservationMargin'>;

/**
 * The key of one system: the value of the environment variable its manifest entry names, or
 * undefined (no variable named, or unset). No other variable is ever read for it.
 */
export function apiKeyForSystem(
  system: SystemSpec,
  context: Pick<LiveModelContext, 'env' | 'apiKey'>,
): string | undefined {
  const variable = apiKeyEnvOf(system);
  if (variable === null) return undefined;
  const value =
    context.env?.[variable] ?? (variable === OPENROUTER_KEY_ENV ? context.apiKey : undefined);
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

/** The scripted system name of a `scripted/<name>` model ID. */
export function scriptedNameOf(system: SystemSpec): string {
  return system.model.replace(/^scripted\//, '');
}

/**
 * Builds the `ChatModel` of every system of a manifest: scripted systems in process, OpenRouter
 * models with their allowlist, the ledger and the larger of catalog and safety prices, and
 * OpenAI-compatible endpoints by base URL.
 */
export function modelsForManifest(
  manifest: RunManifest,
  context: LiveModelContext = {},
): Map<string, ChatModel> {
  const models = new Map<string, ChatModel>();
  for (const system of manifest.systems) {
    models.set(system.id, modelForSystem(system, manifest, context));
  }
  return models;
}

/**
 * Builds the `ChatModel` of one system: a scripted system of the pilot in process, an OpenRouter
 * model with its allowlist, the ledger and the larger of catalog and safety prices, or an
 * OpenAI-compatible endpoint by base URL.
 */
export function modelForSystem(
  system: SystemSpec,
  manifest: TransportSettings,
  context: LiveModelContext,
): ChatModel {
  if (isImitatorSystem(system)) {
    return createImitatorModel(
      imitatorTargetsFromDeclared(system.scripted?.declaredNoise ?? {}),
      system.scripted?.seed === undefined ? {} : { seed: system.scripted.seed },
    );
  }
  if (system.kind === 'scripted' && isMemoryReference(scriptedNameOf(system)))
    return createMemoryReferenceModel(scriptedNameOf(system));
  if (system.kind === 'scripted') {
    return createScriptedModel(scriptedNameOf(system), {
      ...(system.scripted?.seed === undefined ? {} : { seed: system.scripted.seed }),
      ...(context.now === undefined ? {} : { now: context.now }),
      ...(context.builtIns === undefined ? {} : { experiments: context.builtIns }),
    });
  }
  const common = {
    model: system.model,
    maxOutputTokens: system.maxOutputTokens,
    deadlineMs: manifest.deadlineMs,
    maxRetries: manifest.retry.maxRetries,
    retryAfterCapMs: manifest.retry.retryAfterCapMs,
    reservationMargin: manifest.reservationMargin,
    evidenceClass: system.evidenceClass,
    ...(system.safetyPrice === null ? {} : { safetyPrice: system.safetyPrice }),
    ...(context.ledger === undefined ? {} : { ledger: context.ledger }),
    ...(context.fetch === undefined ? {} : { fetch: context.fetch }),
    ...(context.now === undefined ? {} : { now: context.now }),
    ...(context.elapsedMs === undefined ? {} : { elapsedMs: context.elapsedMs }),
  };
  const apiKey = apiKeyForSystem(system, context);
  if (system.kind === 'openrouter') {
    if (apiKey === undefined)
      throw new InvalidArgumentError(
        'apiKey',
        `system ${system.id} needs ${apiKeyEnvOf(system) ?? OPENROUTER_KEY_ENV} in the environment`,
      );
    return createOpenRouterModel({
      ...common,
      mode: 'openrouter',
      apiKey,
      providers: system.providers,
      reasoningEffort: (system.reasoningEffort ?? null) as ReasoningEffort | null,
      ...(system.baseUrl === null ? {} : { baseURL: system.baseUrl }),
      ...(context.catalog === undefined
        ? {}
        : { catalog: catalogEntry(context.catalog, system.model) }),
    });
  }
  // No declared price: the ceiling cannot bound this endpoint (the user acknowledged it when the
  // run was created), so it reserves nothing and a reported cost is recorded, never an overcharge.
  const unpriced = system.safetyPrice === null;
  if (system.baseUrl === null)
    throw new InvalidArgumentError(
      'baseUrl',
      `system ${system.id} is openai-compatible but has no base URL`,
    );
  const { ledger: _unbounded, ...withoutLedger } = common;
  const model = createOpenRouterModel({
    ...(unpriced ? withoutLedger : common),
    mode: 'openai-compatible',
    baseURL: system.baseUrl,
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(system.reasoningEffort === null
      ? {}
      : { reasoningEffort: system.reasoningEffort as ReasoningEffort }),
  });
  if (system.instanceControl === undefined) return model;
  // Declared by the endpoint and frozen in the manifest: its export / import / erase over HTTP.
  const instanceControl = createHttpInstanceControl({
    baseUrl: system.baseUrl,
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(context.fetch === undefined ? {} : { fetch: context.fetch }),
  });
  return { ...model, generate: (request) => model.generate(request), instanceControl };
}
