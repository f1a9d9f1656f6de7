import { describe, expect, it } from 'vitest';
import {
  ApiCallError,
  BudgetExceededError,
  ChiError,
  InvalidArgumentError,
  ValidationError,
} from './errors';

describe('errors', () => {
  it('are recognised across package copies by their marker, not by instanceof', () => {
    const error = new InvalidArgumentError('load', 'expected an integer >= 1, found 0');
    // A structurally identical object from another copy of the package carries the same marker.
    const foreign = Object.assign(Object.create(null), {
      name: 'InvalidArgumentError',
      [Symbol.for('chi.error')]: true,
    });
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(InvalidArgumentError.isInstance(foreign)).toBe(true);
    expect(ChiError.isInstance(foreign)).toBe(true);
    expect(ValidationError.isInstance(error)).toBe(false);
    expect(ChiError.isInstance(new Error('plain'))).toBe(false);
    expect(ChiError.isInstance(null)).toBe(false);
  });

  it('say what was expected and where', () => {
    expect(new InvalidArgumentError('load', 'expected an integer >= 1, found 0').message).toBe(
      'load: expected an integer >= 1, found 0',
    );
    const budget = new BudgetExceededError({
      requestedUsd: 0.5,
      ceilingUsd: 10,
      committedUsd: 9.75,
    });
    expect(budget.message).toBe(
      'Budget refused: reserving 0.5 USD on top of 9.75 USD committed would exceed the ceiling of 10 USD',
    );
    expect(BudgetExceededError.isInstance(budget)).toBe(true);
  });

  it('carry retry information on API call errors', () => {
    const error = new ApiCallError({
      message: 'HTTP 503',
      url: 'http://127.0.0.1/x',
      status: 503,
      body: null,
      isRetryable: true,
    });
    expect([error.status, error.isRetryable, ApiCallError.isInstance(error)]).toEqual([
      503,
      true,
      true,
    ]);
  });

  it('truncate long issue lists in the message but keep every issue', () => {
    const issues = Array.from({ length: 12 }, (_, k) => ({ path: `a[${k}]`, message: 'bad' }));
    const error = new ValidationError('thing', issues);
    expect(error.issues).toHaveLength(12);
    expect(error.message.endsWith('  ... and 2 more')).toBe(true);
  });
});
