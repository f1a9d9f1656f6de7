import { ChiError } from '@chi/spec';

/** A bad command line: one line saying what was expected and what was found. Exit code 2. */
export class UsageError extends ChiError {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }

  /** True for this error from any copy of the package. */
  static override isInstance(error: unknown): error is UsageError {
    return ChiError.isInstance(error) && error.name === 'UsageError';
  }
}
