function arrayIndex(property: string | symbol, length: number): number | null {
  if (typeof property !== 'string' || !/^(0|[1-9][0-9]*)$/.test(property)) return null;
  const index = Number(property);
  return index < length ? index : null;
}

/**
 * A read-only array of `length` elements that holds none of them but the last one asked for:
 * indexing it, iterating it or any array method (`filter`, `map`, `forEach`...) asks `at` for
 * each element as it is reached, and asking for the same index again in a row gives the element
 * kept (`array[i].a` then `array[i].b` reads element i once). What it holds is what `at` closes
 * over (where each element is) and that one element. Writing to it throws a TypeError saying
 * `refusal`.
 */
export function lazyArray<T>(
  length: number,
  at: (index: number) => T,
  refusal: string,
): readonly T[] {
  const refuse = (): never => {
    throw new TypeError(refusal);
  };
  let last: { readonly index: number; readonly value: T } | null = null;
  const element = (index: number): T => {
    if (last !== null && last.index === index) return last.value;
    last = { index, value: at(index) };
    return last.value;
  };
  return new Proxy<T[]>([], {
    get(target, property, receiver) {
      if (property === 'length') return length;
      const index = arrayIndex(property, length);
      if (index !== null) return element(index);
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
      return { value: element(index), writable: false, enumerable: true, configurable: true };
    },
    set: refuse,
    deleteProperty: refuse,
    defineProperty: refuse,
  });
}
