/**
 * `@chi/openrouter/internal`: what the repository's own packages share with each other and their tests, but
 * users do not need. No stability promise: names here may change in any release. The public API is
 * `@chi/openrouter` (see its README and api/openrouter.api.txt).
 *
 * @packageDocumentation
 */
export { matchesProviderSlug } from './catalog';
