import { describe, expect, it } from 'vitest';
import { StatsInputError } from './errors.js';

describe('StatsInputError', () => {
  it('names the field and the problem', () => {
    const error = new StatsInputError(
      'level',
      'expected a number strictly between 0 and 1, found 2',
    );
    expect(error.name).toBe('StatsInputError');
    expect(error.field).toBe('level');
    expect(error.message).toBe('level: expected a number strictly between 0 and 1, found 2');
    expect(error).toBeInstanceOf(Error);
  });

  it('keeps the cause', () => {
    const cause = new Error('root');
    expect(new StatsInputError('seed', 'bad', { cause }).cause).toBe(cause);
  });

  it('is recognised by its marker, also when the class is a different copy', () => {
    const marker = Symbol.for('chi.error');
    const foreign = Object.assign(new Error('x'), { name: 'StatsInputError', [marker]: true });
    expect(StatsInputError.isInstance(new StatsInputError('seed', 'bad'))).toBe(true);
    expect(StatsInputError.isInstance(foreign)).toBe(true);
  });

  it('rejects other errors and non-errors', () => {
    const marker = Symbol.for('chi.error');
    const otherChiError = Object.assign(new Error('x'), { name: 'ApiCallError', [marker]: true });
    expect(StatsInputError.isInstance(otherChiError)).toBe(false);
    expect(StatsInputError.isInstance(new Error('plain'))).toBe(false);
    expect(StatsInputError.isInstance(null)).toBe(false);
    expect(StatsInputError.isInstance('StatsInputError')).toBe(false);
  });
});
