import { ChiError } from '@chi/spec';
import { describe, expect, it } from 'vitest';
import { apiKeyFromEnv, MissingApiKeyError } from './api-key';

describe('apiKeyFromEnv', () => {
  it('returns the trimmed key from the named variable', () => {
    expect(apiKeyFromEnv('OPENROUTER_API_KEY', { OPENROUTER_API_KEY: ' sk-or-v1-abc \n' })).toBe(
      'sk-or-v1-abc',
    );
    expect(apiKeyFromEnv('LOCAL_KEY', { LOCAL_KEY: 'k' })).toBe('k');
  });

  it.each([[{}], [{ OPENROUTER_API_KEY: '' }], [{ OPENROUTER_API_KEY: '   ' }]])(
    'throws a one-line typed error when the variable is missing or blank (%j)',
    (env) => {
      let caught: unknown;
      try {
        apiKeyFromEnv('OPENROUTER_API_KEY', env);
      } catch (error) {
        caught = error;
      }
      expect(MissingApiKeyError.isInstance(caught)).toBe(true);
      expect(ChiError.isInstance(caught)).toBe(true);
      const error = caught as MissingApiKeyError;
      expect(error.variable).toBe('OPENROUTER_API_KEY');
      expect(error.message).toBe(
        'OPENROUTER_API_KEY is not set: export your API key in this environment variable (keys are never read from files)',
      );
      expect(error.message).not.toContain('\n');
    },
  );
});
