import { describe, expect, it } from 'vitest';
import { isList } from './guards';

describe('isList', () => {
  it('is Array.isArray without narrowing', () => {
    expect(isList([])).toBe(true);
    expect(isList('[]')).toBe(false);
    expect(isList({ length: 0 })).toBe(false);
  });
});
