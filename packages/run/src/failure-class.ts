// The failure classification is pure (a function of the recorded result), so it lives in
// @chi/spec (src/failure-class.ts), where the divergence scorer of @chi/experiments reads it too.
export {
  ACCOUNT_FAILURE_STATUSES,
  type FailureCategory,
  failureCategory,
  infrastructureReason,
  isAccountFailure,
  isInfrastructureFailure,
  ROUTING_FAILURE_STATUSES,
} from '@chi/spec/internal';
