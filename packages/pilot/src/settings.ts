import { NOTEBOOK_CAP_BYTES } from '@chi/experiments/internal';
import { InvalidArgumentError, type Price, type SystemSpec } from '@chi/spec';
import { PILOT_EXPERIMENTS } from './experiments/registry';
import type { PilotSettings } from './pilot-settings';
import {
  DEFAULT_SCRIPTED_SEED,
  SCRIPTED_SYSTEM_NAMES,
  scriptedSystemSpec,
} from './scripted/scripted-systems';

/** The protocol this runner implements. */
export const PROTOCOL_ID = 'cplom-longitudinal-model-pilot-2026-09-v1';
/** Default root seed of world seeds (the protocol month). */
export const DEFAULT_ROOT_SEED = 20260901;
/** Default analysis (bootstrap) seed. */
export const DEFAULT_ANALYSIS_SEED = 20260902;

/** The history experiment's default primary checkpoint: 3, the last before the correction. */
export const DEFAULT_PRIMARY_CHECKPOINT = 3;
/** The pilot's memory grid. */
export const DEFAULT_LOADS: readonly number[] = [32, 64, 128, 256];
/** Offline default: four worlds, so every interval has at least four clusters. */
export const DEFAULT_OFFLINE_REPLICATES = 4;
/** The scripted roster of the offline pilot. */
export const DEFAULT_SCRIPTED_ROSTER: readonly string[] = SCRIPTED_SYSTEM_NAMES;

/**
 * Declared safety price of the default live models: 5 USD per million input tokens, 25 USD per
 * million output tokens. Reservations use the larger of this and the catalog price, so an
 * understated catalog price cannot push spend past the ceiling.
 */
export const DEFAULT_SAFETY_PRICE: Price = {
  inputUsdPerToken: 5e-6,
  outputUsdPerToken: 25e-6,
  requestUsd: 0,
};

/** The OpenRouter API base URL. */
export const OPENROUTER_BASE_URL = 'https://openrouter.ai/api/v1';

/** The four requested models of the protocol with their provider allowlists. */
export const DEFAULT_LIVE_ROSTER: readonly {
  id: string;
  model: string;
  providers: readonly string[];
}[] = [
  { id: 'grok-4.6', model: 'x-ai/grok-4.6', providers: ['xai'] },
  { id: 'gpt-6-astra', model: 'openai/gpt-6-astra', providers: ['openai'] },
  { id: 'claude-fable-5.1', model: 'anthropic/claude-fable-5.1', providers: ['anthropic'] },
  { id: 'kimi-k3', model: 'moonshotai/kimi-k3', providers: ['moonshotai/mxfp4'] },
];

/** A system ID usable in file names: lowercase letters, digits, `.`, `_` and `-`. */
export function systemIdFor(model: string): string {
  const tail = model.split('/').pop() ?? model;
  return (
    tail
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'model'
  );
}

/** The manifest entry of an OpenRouter model with its provider allowlist. */
export function openRouterSystemSpec(args: {
  id?: string;
  model: string;
  providers: readonly string[];
  maxOutputTokens?: number;
  safetyPrice?: Price;
  reasoningEffort?: string | null;
}): SystemSpec {
  return {
    id: args.id ?? systemIdFor(args.model),
    kind: 'openrouter',
    model: args.model,
    providers: [...args.providers],
    baseUrl: OPENROUTER_BASE_URL,
    evidenceClass: 'live_model',
    reasoningEffort: args.reasoningEffort === undefined ? 'low' : args.reasoningEffort,
    maxOutputTokens: args.maxOutputTokens ?? 4096,
    safetyPrice: args.safetyPrice ?? DEFAULT_SAFETY_PRICE,
    apiKeyEnv: OPENROUTER_KEY_ENV,
  };
}

/** The environment variable OpenRouter systems read their key from. */
export const OPENROUTER_KEY_ENV = 'OPENROUTER_API_KEY';
/** The environment variable OpenAI-compatible systems read their key from by default. */
export const OPENAI_KEY_ENV = 'OPENAI_API_KEY';

/**
 * The environment variable a system's key comes from: its manifest's `apiKeyEnv`, else (older
 * manifests) `OPENROUTER_API_KEY` for OpenRouter and `OPENAI_API_KEY` for OpenAI-compatible
 * systems; null for scripted systems and for an endpoint declared keyless.
 */
export function apiKeyEnvOf(system: SystemSpec): string | null {
  if (system.kind === 'scripted') return null;
  if (system.apiKeyEnv !== undefined) return system.apiKeyEnv;
  return system.kind === 'openrouter' ? OPENROUTER_KEY_ENV : OPENAI_KEY_ENV;
}

/** The manifest entry of a model behind any OpenAI-compatible endpoint. */
export function openAiCompatibleSystemSpec(args: {
  id?: string;
  model: string;
  baseUrl: string;
  maxOutputTokens?: number;
  /**
   * The declared price; free (all zero) when absent. `null`: no price is known, so the ceiling
   * cannot bound this system's spend (its model runs without a ledger reservation).
   */
  safetyPrice?: Price | null;
  /**
   * What the user declares serves the endpoint (`--evidence-class`): `live_model`, or
   * `scripted_baseline` for a scripted system served over HTTP (`chi serve`); by default
   * `unverified_endpoint`, never promoted to a live model without a declaration.
   */
  evidenceClass?: SystemSpec['evidenceClass'];
  /** The environment variable of the endpoint's key; `OPENAI_API_KEY` by default, `null` for none. */
  apiKeyEnv?: string | null;
}): SystemSpec {
  return {
    id: args.id ?? systemIdFor(args.model),
    kind: 'openai-compatible',
    model: args.model,
    providers: [],
    baseUrl: args.baseUrl,
    evidenceClass: args.evidenceClass ?? 'unverified_endpoint',
    reasoningEffort: null,
    maxOutputTokens: args.maxOutputTokens ?? 4096,
    safetyPrice:
      args.safetyPrice === undefined
        ? { inputUsdPerToken: 0, outputUsdPerToken: 0, requestUsd: 0 }
        : args.safetyPrice,
    apiKeyEnv: args.apiKeyEnv === undefined ? OPENAI_KEY_ENV : args.apiKeyEnv,
  };
}

/** The default offline settings: the scripted roster, four worlds, the pilot grid, everything on. */
export function defaultOfflineSettings(overrides: Partial<PilotSettings> = {}): PilotSettings {
  return validateSettings({
    systems: DEFAULT_SCRIPTED_ROSTER.map((name) => scriptedSystemSpec(name, DEFAULT_SCRIPTED_SEED)),
    replicates: DEFAULT_OFFLINE_REPLICATES,
    rootSeed: DEFAULT_ROOT_SEED,
    loads: DEFAULT_LOADS,
    probesPerStratum: 8,
    batchSize: null,
    controlsAtLoad: 32,
    history: true,
    behavior: true,
    notebookCapBytes: NOTEBOOK_CAP_BYTES,
    ceilingUsd: 0,
    deadlineMs: 180_000,
    maxOutputTokens: 4096,
    concurrency: 8,
    maxRetries: 2,
    retryAfterCapMs: 60_000,
    reservationMargin: 0.25,
    analysisSeed: DEFAULT_ANALYSIS_SEED,
    resamples: 2000,
    level: 0.95,
    taus: [0.7, 0.8, 0.9],
    primaryCheckpoint: DEFAULT_PRIMARY_CHECKPOINT,
    requireSmoke: false,
    ...overrides,
  });
}

function positiveInteger(field: string, value: number): void {
  if (!Number.isInteger(value) || value < 1)
    throw new InvalidArgumentError(field, `expected a positive integer, found ${String(value)}`);
}

/** Checks settings, throwing `InvalidArgumentError` naming the first bad field. */
export function validateSettings(settings: PilotSettings): PilotSettings {
  if (settings.systems.length === 0)
    throw new InvalidArgumentError('systems', 'expected at least one system, found none');
  const ids = settings.systems.map((system) => system.id);
  const duplicate = ids.find((id, index) => ids.indexOf(id) !== index);
  if (duplicate !== undefined)
    throw new InvalidArgumentError(
      'systems',
      `system IDs must be unique, found ${duplicate} twice`,
    );
  for (const id of ids) {
    if (!/^[a-z0-9._-]+$/.test(id))
      throw new InvalidArgumentError(
        'systems',
        `system ID ${JSON.stringify(id)} must match [a-z0-9._-]+`,
      );
  }
  positiveInteger('replicates', settings.replicates);
  positiveInteger('probesPerStratum', settings.probesPerStratum);
  positiveInteger('notebookCapBytes', settings.notebookCapBytes);
  positiveInteger('deadlineMs', settings.deadlineMs);
  positiveInteger('maxOutputTokens', settings.maxOutputTokens);
  positiveInteger('concurrency', settings.concurrency);
  positiveInteger('resamples', settings.resamples);
  if (settings.compareTo !== undefined && !ids.includes(settings.compareTo))
    throw new InvalidArgumentError(
      'compareTo',
      `names no system of the run (${JSON.stringify(settings.compareTo)}); the systems are ${ids.join(', ')}`,
    );
  if (settings.batchSize !== null) positiveInteger('batchSize', settings.batchSize);
  for (const load of settings.loads) positiveInteger('loads', load);
  if (new Set(settings.loads).size !== settings.loads.length)
    throw new InvalidArgumentError(
      'loads',
      `expected distinct loads, found ${settings.loads.join(',')}`,
    );
  if (settings.controlsAtLoad !== null) positiveInteger('controlsAtLoad', settings.controlsAtLoad);
  if (!Number.isFinite(settings.ceilingUsd) || settings.ceilingUsd < 0)
    throw new InvalidArgumentError(
      'ceilingUsd',
      `expected a USD amount >= 0, found ${String(settings.ceilingUsd)}`,
    );
  if (!Number.isFinite(settings.reservationMargin) || settings.reservationMargin < 0)
    throw new InvalidArgumentError(
      'reservationMargin',
      `expected a number >= 0, found ${String(settings.reservationMargin)}`,
    );
  if (!(settings.level > 0 && settings.level < 1))
    throw new InvalidArgumentError(
      'level',
      `expected a number in (0, 1), found ${String(settings.level)}`,
    );
  if (!Number.isInteger(settings.maxRetries) || settings.maxRetries < 0)
    throw new InvalidArgumentError(
      'maxRetries',
      `expected an integer >= 0, found ${String(settings.maxRetries)}`,
    );
  if (!Number.isInteger(settings.primaryCheckpoint) || settings.primaryCheckpoint < 0)
    throw new InvalidArgumentError(
      'primaryCheckpoint',
      `expected a history checkpoint, an integer >= 0, found ${String(settings.primaryCheckpoint)}`,
    );
  // With `templates`, the experiments are checked where they are known (`buildManifest`): an
  // experiment registered from outside this package is not in the pilot's registry.
  if (
    settings.templates === undefined &&
    !PILOT_EXPERIMENTS.some((experiment) => experiment.parametersFrom(settings) !== null)
  )
    throw new InvalidArgumentError('experiments', 'expected at least one experiment, found none');
  return { ...settings, loads: [...settings.loads].sort((a, b) => a - b) };
}
