function arrayIndex(property: string | symbol, length: number): number | null {
  if (typeof property !== 'string' || !/^(0|[1-9][0-9]*)$/.test(property)) return null;
  const index = Number(property);
  return index < length ? index : null;
}

/**
 * A read-only array of `length` elements that holds none of them: indexing it, iterating it or
 * any array method (`filter`, `map`, `forEach`...) asks `at` for each element as it is reached.
 * What it holds is what `at` closes over (where each element is), not the elements. Writing to
 * it throws a TypeError saying `refusal`.
 */
export function lazyArray<T>(
  length: number,
  at: (index: number) => T,
  refusal: string,
): readonly T[] {
  const refuse = (): never => {
    throw new TypeError(refusal);
  };
  return new Proxy<T[]>([], {
    get(target, property, receiver) {
      if (property === 'length') return length;
      const index = arrayIndex(property, length);
      if (index !== null) return at(index);
      return Reflect.get(target, property, receiver);
    },
    has(target, property) {
      return arrayIndex(property, length) !== null || Reflect.has(target, property);
    },
    ownKeys() {
      return [...Array.from({ length }, (_, i) => String(i)), 'length'];
    },
    getOwnPropertyDescriptor(target, property) {
      if (property === 'length')
        return { value: length, writable: true, enumerable: false, configurable: false };
      const index = arrayIndex(property, length);
      if (index === null) return Reflect.getOwnPropertyDescriptor(target, property);
      return { value: at(index), writable: false, enumerable: true, configurable: true };
    },
    set: refuse,
    deleteProperty: refuse,
    defineProperty: refuse,
  });
}
