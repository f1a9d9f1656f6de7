// The failure classification is pure (a function of the recorded result), so it lives in
// @chi/spec (src/failure-class.ts), where the divergence scorer of @chi/experiments reads it too.
export {
  failureCategory,
  infrastructureReason,
  isAccountFailure,
  isInfrastructureFailure,
} from '@chi/spec/internal';
