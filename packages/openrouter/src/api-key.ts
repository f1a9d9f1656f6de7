import { ChiError } from '@chi/spec';

/** The API key environment variable is missing or empty. The message is one line and names it. */
export class MissingApiKeyError extends ChiError {
  /** Name of the environment variable that was read. */
  readonly variable: string;

  constructor(variable: string) {
    super(
      `${variable} is not set: export your API key in this environment variable (keys are never read from files)`,
    );
    this.name = 'MissingApiKeyError';
    this.variable = variable;
  }

  /** True for this error from any copy of the package (the `ChiError` marker plus the name). */
  static override isInstance(error: unknown): error is MissingApiKeyError {
    return ChiError.isInstance(error) && error.name === 'MissingApiKeyError';
  }
}

/**
 * Reads an API key from the environment. Keys are never read from files or written anywhere by
 * this package; pass the result to `createOpenRouterModel({ apiKey })` or `fetchCatalog`.
 *
 * @param name - the environment variable, `OPENROUTER_API_KEY` by default
 * @param env - the environment to read, `process.env` by default (injectable for tests)
 * @throws {@link MissingApiKeyError} when the variable is missing or blank
 *
 * @example
 * ```ts
 * const model = createOpenRouterModel({ model: 'moonshotai/kimi-k3', apiKey: apiKeyFromEnv(), ... });
 * ```
 */
export function apiKeyFromEnv(
  name = 'OPENROUTER_API_KEY',
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  const value = env[name]?.trim();
  if (value === undefined || value === '') throw new MissingApiKeyError(name);
  return value;
}
