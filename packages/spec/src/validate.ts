import type { z } from 'zod';
import { ValidationError, type ValidationIssue } from './errors';

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? String(segment) : `.${String(segment)}`;
  }
  return out;
}

/**
 * Turns zod issues into `{ path, message }` pairs a human can act on, e.g.
 * `records[3].value: expected 8 lowercase hex characters, found "XYZ"`.
 */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): ValidationIssue[] {
  return issues.map((issue) => ({ path: formatPath(issue.path), message: issue.message }));
}

/**
 * Parses `value` with `schema`, throwing a {@link ValidationError} that names every bad path.
 *
 * @example
 * ```ts
 * const world = parseWith(MemoryWorldSchema, JSON.parse(text), 'memory world');
 * ```
 */
export function parseWith<S extends z.ZodType>(
  schema: S,
  value: unknown,
  subject: string,
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new ValidationError(subject, formatIssues(result.error.issues), { cause: result.error });
}
