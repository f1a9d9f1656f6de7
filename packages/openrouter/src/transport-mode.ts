import { InvalidArgumentError } from '@chi/spec';

/** Reasoning efforts OpenRouter accepts. */
export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';

/** How the cost of an answer without `usage.cost` is asked for: `GET /generation?id=` retries. */
export interface GenerationLookup {
  /** Lookups of one generation, the first included. */
  readonly attempts: number;
  /** Wait between two lookups. */
  readonly intervalMs: number;
}

/** The settings a mode reads to add its own headers. */
export interface ModeHeaderSettings {
  /** Sent as `HTTP-Referer` (OpenRouter mode only). */
  readonly appUrl?: string;
  /** Sent as `X-OpenRouter-Title` (OpenRouter mode only). */
  readonly appTitle?: string;
}

/**
 * What differs between OpenRouter and a plain OpenAI-compatible server, as one small strategy
 * instead of a flag tested in every step: its defaults, what it requires, the headers and request
 * fields it adds, and whether a returned provider is checked against the allowlist.
 */
export interface TransportMode {
  /** The mode's name, reported as the model's `provider`. */
  readonly id: 'openrouter' | 'openai-compatible';
  /** Reasoning effort when the settings do not set one. */
  readonly defaultReasoningEffort: ReasoningEffort | null;
  /** Generation lookup when the settings do not set one. */
  readonly defaultGenerationLookup: GenerationLookup | false;
  /** Whether a response's provider must be one of the allowlist. */
  readonly checksProviderAllowlist: boolean;
  /** Throws when a setting the mode cannot work without is missing. */
  requireSettings(found: {
    readonly providers: readonly string[];
    readonly apiKey: string | undefined;
    readonly ledgerGiven: boolean;
  }): void;
  /** Headers the mode adds to every request. */
  headers(settings: ModeHeaderSettings): Record<string, string>;
  /** Request-body fields the mode adds after `model`, `messages`, `max_tokens` and `reasoning`. */
  bodyFields(providers: readonly string[]): Record<string, unknown>;
}

/** OpenRouter: routing fields and headers, a provider allowlist, a key and a budget ledger. */
export const OPENROUTER_MODE: TransportMode = {
  id: 'openrouter',
  defaultReasoningEffort: 'low',
  defaultGenerationLookup: { attempts: 4, intervalMs: 500 },
  checksProviderAllowlist: true,
  requireSettings({ providers, apiKey, ledgerGiven }) {
    if (providers.length === 0) {
      throw new InvalidArgumentError(
        'providers',
        'expected a provider allowlist (e.g. ["moonshotai/mxfp4"]) in openrouter mode, found none',
      );
    }
    if (apiKey === undefined || apiKey.trim() === '') {
      throw new InvalidArgumentError(
        'apiKey',
        'expected an API key in openrouter mode (read it with apiKeyFromEnv()), found none',
      );
    }
    if (!ledgerGiven) {
      throw new InvalidArgumentError(
        'ledger',
        'expected a budget ledger in openrouter mode (createFileLedger or createMemoryLedger), found none',
      );
    }
  },
  headers(settings) {
    const headers: Record<string, string> = {};
    if (settings.appUrl !== undefined) headers['http-referer'] = settings.appUrl;
    if (settings.appTitle !== undefined) headers['x-openrouter-title'] = settings.appTitle;
    return headers;
  },
  bodyFields(providers) {
    return {
      provider: { only: [...providers], allow_fallbacks: false, require_parameters: true },
      plugins: [{ id: 'context-compression', enabled: false }],
    };
  },
};

/** vLLM, llama.cpp server, Ollama...: only the OpenAI fields, nothing required. */
export const OPENAI_COMPATIBLE_MODE: TransportMode = {
  id: 'openai-compatible',
  defaultReasoningEffort: null,
  defaultGenerationLookup: false,
  checksProviderAllowlist: false,
  requireSettings() {},
  headers() {
    return {};
  },
  bodyFields() {
    return {};
  },
};

/** The strategy of a `mode` setting (`openrouter` when absent); throws for any other value. */
export function transportModeFor(mode: unknown): TransportMode {
  const id = mode ?? 'openrouter';
  if (id === 'openrouter') return OPENROUTER_MODE;
  if (id === 'openai-compatible') return OPENAI_COMPATIBLE_MODE;
  throw new InvalidArgumentError(
    'mode',
    `expected openrouter or openai-compatible, found ${JSON.stringify(id)}`,
  );
}
