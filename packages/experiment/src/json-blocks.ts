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
  const begin = `BEGIN ${name} JSON`;
  const end = `END ${name} JSON`;
  // Whole-line matches found with indexOf: the same lines `text.split('\n')` would compare, without
  // splitting a prompt of thousands of records into lines on every call.
  const starts = wholeLineStarts(text, begin);
  if (starts.length === 0) return undefined;
  if (starts.length > 1)
    throw new InvalidArgumentError(name, `expected one ${begin} line, found ${starts.length}`);
  const bodyStart = (starts[0] ?? 0) + begin.length + 1;
  const stop = nextWholeLine(text, end, bodyStart);
  if (stop < 0)
    throw new InvalidArgumentError(name, `expected an ${end} line after ${begin}, found none`);
  // The lines strictly between the markers, joined by their line breaks (none when adjacent).
  const body = stop <= bodyStart ? '' : text.slice(bodyStart, stop - 1);
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

/** Whether `text` holds the whole line `line` at offset `at` (a line break or an end on both sides). */
function isWholeLineAt(text: string, line: string, at: number): boolean {
  const after = at + line.length;
  return (
    (at === 0 || text.charCodeAt(at - 1) === 0x0a) &&
    (after === text.length || text.charCodeAt(after) === 0x0a)
  );
}

/** The offsets of every line of `text` equal to `line`. */
function wholeLineStarts(text: string, line: string): number[] {
  const starts: number[] = [];
  for (let at = text.indexOf(line); at >= 0; at = text.indexOf(line, at + 1))
    if (isWholeLineAt(text, line, at)) starts.push(at);
  return starts;
}

/** The offset of the first line equal to `line` that starts at or after `from` (a line start), or -1. */
function nextWholeLine(text: string, line: string, from: number): number {
  for (let at = text.indexOf(line, from); at >= 0; at = text.indexOf(line, at + 1))
    if (isWholeLineAt(text, line, at)) return at;
  return -1;
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
