import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CodeSet } from './code-set';

describe('CodeSet', () => {
  it('behaves like a Set<number> for 40-bit codes, through growth', () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat({ max: 2 ** 40 - 1 }), { maxLength: 300 }),
        fc.array(fc.nat({ max: 2 ** 40 - 1 }), { maxLength: 50 }),
        (added, probed) => {
          const codes = new CodeSet(4);
          const reference = new Set<number>();
          for (const code of added) {
            if (codes.add(code) !== !reference.has(code)) return false;
            reference.add(code);
          }
          return (
            codes.size === reference.size &&
            [...added, ...probed].every((code) => codes.has(code) === reference.has(code))
          );
        },
      ),
    );
  });

  it('tells codes apart that share their low 32 bits', () => {
    const codes = new CodeSet(8);
    codes.add(5);
    expect(codes.has(5 + 2 ** 32)).toBe(false);
    expect(codes.add(5 + 2 ** 32)).toBe(true);
    expect(codes.add(5)).toBe(false);
    expect(codes.size).toBe(2);
  });
});
