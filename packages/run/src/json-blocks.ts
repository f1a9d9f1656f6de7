import { InvalidArgumentError } from '@chi/spec';

/**
 * Renders a clearly delimited, machine-readable JSON block for a prompt:
 *
 * ```text
 * BEGIN RECORDS JSON
 * [
 * {"key":"...","value":"..."},
 * ...
 * ]
 * END RECORDS JSON
 * ```
 *
 * Arrays put one element per line; anything else is one line. JSON strings never contain a raw
 * line break, so no content (not even notes that quote the markers) can produce a marker line:
 * the block always ends at its own `END` line.
 *
 * @example
 * ```ts
 * renderJsonBlock('QUESTIONS', [{ id: 'q1' }]); // 'BEGIN QUESTIONS JSON\n[\n{"id":"q1"}\n]\nEND QUESTIONS JSON'
 * ```
 */
export function renderJsonBlock(name: string, value: unknown): string {
  if (!/^[A-Z][A-Z_]*$/.test(name)) {
    throw new InvalidArgumentError(
      'name',
      `expected an upper-case block name like RECORDS, found ${JSON.stringify(name)}`,
    );
  }
  const body = Array.isArray(value)
    ? value.length === 0
      ? '[]'
      : `[\n${value.map((element) => JSON.stringify(element)).join(',\n')}\n]`
    : JSON.stringify(value);
  if (body === undefined)
    throw new InvalidArgumentError('value', 'expected a JSON value, found undefined');
  return `BEGIN ${name} JSON\n${body}\nEND ${name} JSON`;
}

/**
 * Finds the JSON block `name` in a rendered prompt and parses it. Returns `undefined` when the
 * prompt has no such block; throws when it has two or when the block is not valid JSON.
 * Marker lines must match exactly (a whole line).
 */
export function extractJsonBlock(text: string, name: string): unknown {
  const lines = text.split('\n');
  const begin = `BEGIN ${name} JSON`;
  const end = `END ${name} JSON`;
  const starts = lines.flatMap((line, index) => (line === begin ? [index] : []));
  if (starts.length === 0) return undefined;
  if (starts.length > 1)
    throw new InvalidArgumentError(name, `expected one ${begin} line, found ${starts.length}`);
  const start = starts[0] ?? 0;
  const stop = lines.indexOf(end, start + 1);
  if (stop < 0)
    throw new InvalidArgumentError(name, `expected an ${end} line after ${begin}, found none`);
  const body = lines.slice(start + 1, stop).join('\n');
  try {
    return JSON.parse(body) as unknown;
  } catch (error) {
    throw new InvalidArgumentError(
      name,
      `expected valid JSON between the markers: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/**
 * The `id` of every element of the JSON block `name` (an array of objects with string IDs), as a
 * scorer reads what a rendered request asked about. Returns `undefined` when there is no such
 * block; throws like {@link extractJsonBlock} on a duplicated, unterminated or invalid block, and
 * when the block is not an array of objects with a string `id`.
 */
export function jsonBlockIds(text: string, name: string): string[] | undefined {
  const value = extractJsonBlock(text, name);
  if (value === undefined) return undefined;
  if (!Array.isArray(value))
    throw new InvalidArgumentError(name, `expected a JSON array in the ${name} block`);
  return value.map((element: unknown, index) => {
    const id =
      typeof element === 'object' && element !== null
        ? (element as { id?: unknown }).id
        : undefined;
    if (typeof id !== 'string')
      throw new InvalidArgumentError(
        `${name}[${index}]`,
        `expected an object with a string id, found ${JSON.stringify(element)}`,
      );
    return id;
  });
}
