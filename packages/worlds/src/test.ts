/**
 * `@chi/worlds/test`: fixtures and contract suites for tests (yours and ours); they need no test
 * framework and return lists of problems.
 *
 * @packageDocumentation
 */
export {
  PILOT_SYNTHETIC_HUMAN_MODEL,
  SYNTHETIC_HUMAN_DATA_HEADER,
  type SyntheticFeatureModel,
  syntheticHumanData,
} from './synthetic-human-data';
