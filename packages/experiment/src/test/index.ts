/**
 * `@chi/experiment/test`: the experiment contract suite (the unstorage `testDriver` pattern).
 * Each check returns the list of problems it found, so it runs under any test framework; a
 * runner adds its own checks on top (the pilot's `checkExperimentContract` plans and renders a
 * small run and calls these).
 *
 * @packageDocumentation
 */
export { experimentDeclarationProblems } from './declaration-problems';
export { experimentPlanProblems } from './plan-problems';
export { experimentScorerProblems } from './scorer-problems';
