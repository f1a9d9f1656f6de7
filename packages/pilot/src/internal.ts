/**
 * `@chi/pilot/internal`: what the repository's own packages share with each other and their tests, but
 * users do not need. No stability promise: names here may change in any release. The public API is
 * `@chi/pilot` (see its README and api/pilot.api.txt).
 *
 * @packageDocumentation
 */
export { divergenceManifestOf } from '@chi/experiments/internal';
export { DIVERGENCE_REGISTRY, divergenceSettings } from './divergence/run';
export { runSmokeChecks } from './endpoints/smoke';
export { finishRun } from './pilot';
export { SCRIPTED_SYSTEM_NAMES } from './scripted/scripted-systems';
