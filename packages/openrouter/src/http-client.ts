import { InvalidArgumentError } from '@chi/spec';
import ky, { type KyInstance } from 'ky';
import type { ResolvedModelSettings } from './model-settings';
import type { ModeHeaderSettings } from './transport-mode';

/**
 * The headers of every request: content type, the bearer key and the mode's own. Each is checked
 * usable in an HTTP header here, so a bad value fails at creation, reported by field name only
 * (the value may be the key).
 */
export function transportHeaders(
  resolved: Pick<ResolvedModelSettings, 'apiKey' | 'mode'>,
  settings: ModeHeaderSettings,
): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const apiKey = resolved.apiKey;
  if (apiKey !== undefined && apiKey !== '') headers.authorization = `Bearer ${apiKey}`;
  Object.assign(headers, resolved.mode.headers(settings));
  for (const [name, value] of Object.entries(headers)) {
    try {
      new Headers({ [name]: value });
    } catch {
      // Reported by field name only: the value may be the key.
      const field =
        name === 'authorization' ? 'apiKey' : name === 'http-referer' ? 'appUrl' : 'appTitle';
      throw new InvalidArgumentError(
        field,
        'expected a value usable in an HTTP header (no line breaks, Latin-1 only)',
      );
    }
  }
  return headers;
}

/** The HTTP client of a transport: no ky retries, no ky timeout, HTTP errors as responses. */
export function createHttpClient(
  baseURL: string,
  headers: Record<string, string>,
  fetch: typeof globalThis.fetch | undefined,
): KyInstance {
  return ky.create({
    prefixUrl: baseURL,
    retry: 0,
    timeout: false,
    throwHttpErrors: false,
    headers,
    ...(fetch === undefined ? {} : { fetch }),
  });
}
