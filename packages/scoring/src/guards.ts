/**
 * `Array.isArray` without type narrowing: on a `readonly T[]` parameter the built-in guard narrows
 * to `any[]`, which would silently switch off type checking for the rest of the function. Used
 * only to reject non-arrays passed by JavaScript callers.
 */
export function isList(value: unknown): boolean {
  return Array.isArray(value);
}
