/**
 * `@chi/worlds/internal`: what the repository's own packages share with each other and their tests, but
 * users do not need. No stability promise: names here may change in any release. The public API is
 * `@chi/worlds` (see its README and api/worlds.api.txt).
 *
 * @packageDocumentation
 */
export { solveFacts } from './behavioral-solver';
export { FEEDBACK_VALENCE_GENERATOR, VALENCE_WRAPPERS } from './feedback-valence-world';
export { CANCELLATION_TEXT, GOAL_PERSISTENCE_GENERATOR } from './goal-persistence-world';
