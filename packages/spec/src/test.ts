/**
 * `@chi/spec/test`: fixtures and contract suites for tests (yours and ours); they need no test
 * framework and return lists of problems.
 *
 * @packageDocumentation
 */
export {
  type ChatModelContractOptions,
  type ChatResultExpectations,
  checkChatModelContract,
  checkChatResult,
} from './contract';
