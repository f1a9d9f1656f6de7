import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { compareUtf8 } from '@chi/analysis/internal';
import { canonicalJson } from '../canonical-json';
import type { VerifyMismatch } from './verify-mismatch';

/** Differences kept per file; the rest are counted in one last mismatch. */
export const MAX_PER_FILE = 50;

const SHOW_CHARS = 200;

/** Bytes read from a file at a time. */
const READ_BYTES = 64 * 1024;

function show(value: unknown): string {
  const text = value === undefined ? '(absent)' : JSON.stringify(value);
  return text.length > SHOW_CHARS
    ? `${text.slice(0, SHOW_CHARS)}… (${text.length} characters)`
    : text;
}

function clip(text: string | undefined): string | undefined {
  return text === undefined || text.length <= 160 ? text : `${text.slice(0, 160)}…`;
}

/** Leaf-by-leaf differences of two JSON values, with paths like `memory[3].qualityScore.estimate`. */
export function diffJson(
  recorded: unknown,
  recomputed: unknown,
  path = '',
): { at: string; recorded: string; recomputed: string }[] {
  if (Array.isArray(recorded) && Array.isArray(recomputed)) {
    const out: { at: string; recorded: string; recomputed: string }[] = [];
    const n = Math.max(recorded.length, recomputed.length);
    for (let i = 0; i < n; i++) out.push(...diffJson(recorded[i], recomputed[i], `${path}[${i}]`));
    return out;
  }
  if (
    recorded !== null &&
    recomputed !== null &&
    typeof recorded === 'object' &&
    typeof recomputed === 'object' &&
    !Array.isArray(recorded) &&
    !Array.isArray(recomputed)
  ) {
    const out: { at: string; recorded: string; recomputed: string }[] = [];
    const keys = [...new Set([...Object.keys(recorded), ...Object.keys(recomputed)])].sort(
      compareUtf8,
    );
    for (const key of keys) {
      out.push(
        ...diffJson(
          (recorded as Record<string, unknown>)[key],
          (recomputed as Record<string, unknown>)[key],
          path === '' ? key : `${path}.${key}`,
        ),
      );
    }
    return out;
  }
  if (canonicalOrNull(recorded) === canonicalOrNull(recomputed)) return [];
  return [
    { at: path === '' ? '(root)' : path, recorded: show(recorded), recomputed: show(recomputed) },
  ];
}

function canonicalOrNull(value: unknown): string | null {
  if (value === undefined) return null;
  try {
    return canonicalJson(value);
  } catch {
    return String(value);
  }
}

/** A `value` mismatch of one file. */
function valueMismatch(
  file: string,
  at: string | null,
  recorded: string | null,
  recomputed: string | null,
  what: string,
): VerifyMismatch {
  return {
    file,
    kind: 'value',
    at,
    recorded,
    recomputed,
    message: `${file}${at === null ? '' : ` at ${at}`}: ${what}`,
  };
}

/**
 * The value mismatches of one file as they are found: the first {@link MAX_PER_FILE} kept, the
 * rest only counted, so a file differing everywhere costs no more memory than one differing once.
 */
class FileMismatches {
  readonly #file: string;
  readonly #kept: VerifyMismatch[] = [];
  #total = 0;

  constructor(file: string) {
    this.#file = file;
  }

  get total(): number {
    return this.#total;
  }

  value(at: string | null, recorded: string | null, recomputed: string | null, what: string): void {
    this.#total += 1;
    if (this.#kept.length < MAX_PER_FILE)
      this.#kept.push(valueMismatch(this.#file, at, recorded, recomputed, what));
  }

  /** The kept mismatches, and one saying how many more there are when some were not kept. */
  result(): VerifyMismatch[] {
    if (this.#total <= MAX_PER_FILE) return [...this.#kept];
    const more = this.#total - MAX_PER_FILE;
    return [
      ...this.#kept,
      valueMismatch(this.#file, null, null, null, `… and ${more} more differences`),
    ];
  }
}

/** A file's text, decoded as UTF-8 a chunk at a time. */
async function* textChunks(path: string, readBytes: number): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  for await (const chunk of createReadStream(path, { highWaterMark: readBytes }))
    yield decoder.write(chunk as Buffer);
  yield decoder.end();
}

/**
 * A file's lines exactly as `text.split('\n')` gives them (the piece after the last `\n`
 * included, empty when the text ends with one), read a chunk at a time.
 */
export async function* textLines(path: string, readBytes = READ_BYTES): AsyncGenerator<string> {
  let rest = '';
  for await (const chunk of textChunks(path, readBytes)) {
    if (!chunk.includes('\n')) {
      rest += chunk;
      continue;
    }
    const lines = (rest + chunk).split('\n');
    rest = lines.pop() as string;
    yield* lines;
  }
  yield rest;
}

/**
 * RFC 4180 rows parsed from text fed a piece at a time: the rows `parseCsv` gives for the whole
 * text, whatever the pieces (a doubled quote split between two pieces included).
 */
export class CsvRowReader {
  #rows: string[][] = [];
  #row: string[] = [];
  #cell = '';
  #quoted = false;
  /** A quote seen inside a quoted field: a doubled quote or the field's end, told by the next character. */
  #quoteSeen = false;

  /** Feeds the next piece of text; returns the rows it completed. */
  push(text: string): string[][] {
    for (let i = 0; i < text.length; i++) this.#character(text[i] as string);
    const rows = this.#rows;
    this.#rows = [];
    return rows;
  }

  /** Ends the text; returns the last row when one is open. */
  end(): string[][] {
    this.#quoteSeen = false;
    this.#quoted = false;
    if (this.#cell !== '' || this.#row.length > 0) {
      this.#row.push(this.#cell);
      this.#rows.push(this.#row);
      this.#row = [];
      this.#cell = '';
    }
    const rows = this.#rows;
    this.#rows = [];
    return rows;
  }

  #character(c: string): void {
    if (this.#quoteSeen) {
      this.#quoteSeen = false;
      if (c === '"') {
        this.#cell += '"';
        return;
      }
      this.#quoted = false;
    }
    if (this.#quoted) {
      if (c === '"') this.#quoteSeen = true;
      else this.#cell += c;
    } else if (c === '"') this.#quoted = true;
    else if (c === ',') {
      this.#row.push(this.#cell);
      this.#cell = '';
    } else if (c === '\n') {
      this.#row.push(this.#cell);
      this.#rows.push(this.#row);
      this.#row = [];
      this.#cell = '';
    } else if (c !== '\r') this.#cell += c;
  }
}

async function* csvRows(path: string, readBytes: number): AsyncGenerator<string[]> {
  const reader = new CsvRowReader();
  for await (const chunk of textChunks(path, readBytes)) yield* reader.push(chunk);
  yield* reader.end();
}

async function* nonEmptyLines(path: string, readBytes: number): AsyncGenerator<string> {
  for await (const line of textLines(path, readBytes)) if (line !== '') yield line;
}

/**
 * Two sequences side by side, index by index, until both end (the shorter one then gives
 * `undefined`); both are closed however the loop ends.
 */
async function* sideBySide<T>(
  recorded: AsyncGenerator<T>,
  recomputed: AsyncGenerator<T>,
): AsyncGenerator<[T | undefined, T | undefined]> {
  try {
    for (;;) {
      const a = await recorded.next();
      const b = await recomputed.next();
      if (a.done === true && b.done === true) return;
      yield [a.done === true ? undefined : a.value, b.done === true ? undefined : b.value];
    }
  } finally {
    await recorded.return(undefined);
    await recomputed.return(undefined);
  }
}

/**
 * The first {@link MAX_PER_FILE} lines that differ, as mismatches naming them; null when the two
 * texts are equal. Stops reading at the last line it reports.
 */
async function differingLines(
  file: string,
  recordedPath: string,
  recomputedPath: string,
  readBytes: number,
): Promise<VerifyMismatch[] | null> {
  const out: VerifyMismatch[] = [];
  let index = 0;
  const lines = sideBySide(
    textLines(recordedPath, readBytes),
    textLines(recomputedPath, readBytes),
  );
  for await (const [a, b] of lines) {
    index += 1;
    if (a === b) continue;
    const [x, y] = [show(clip(a)), show(clip(b))];
    out.push(
      valueMismatch(
        file,
        `line ${index}`,
        x,
        y,
        `line ${index} differs: recorded ${x}, recomputed ${y}`,
      ),
    );
    if (out.length === MAX_PER_FILE) break;
  }
  return out.length === 0 ? null : out;
}

function jsonDifference(
  out: FileMismatches,
  d: { at: string; recorded: string; recomputed: string },
) {
  out.value(d.at, d.recorded, d.recomputed, `recorded ${d.recorded}, recomputed ${d.recomputed}`);
}

async function jsonDiffs(out: FileMismatches, recordedPath: string, recomputedPath: string) {
  const recorded = JSON.parse(await readFile(recordedPath, 'utf8')) as unknown;
  const recomputed = JSON.parse(await readFile(recomputedPath, 'utf8')) as unknown;
  for (const d of diffJson(recorded, recomputed)) jsonDifference(out, d);
}

async function jsonlDiffs(
  out: FileMismatches,
  recordedPath: string,
  recomputedPath: string,
  readBytes: number,
) {
  let index = 0;
  const lines = sideBySide(
    nonEmptyLines(recordedPath, readBytes),
    nonEmptyLines(recomputedPath, readBytes),
  );
  for await (const [a, b] of lines) {
    index += 1;
    const left = a === undefined ? undefined : (JSON.parse(a) as unknown);
    const right = b === undefined ? undefined : (JSON.parse(b) as unknown);
    for (const d of diffJson(left, right, `line ${index}`)) jsonDifference(out, d);
  }
}

async function csvDiffs(
  out: FileMismatches,
  recordedPath: string,
  recomputedPath: string,
  readBytes: number,
) {
  let header: readonly string[] | null = null;
  let r = 0;
  const rows = sideBySide(csvRows(recordedPath, readBytes), csvRows(recomputedPath, readBytes));
  for await (const [a, b] of rows) {
    header ??= b ?? [];
    for (let c = 0; c < Math.max(a?.length ?? 0, b?.length ?? 0); c++) {
      const x = a?.[c];
      const y = b?.[c];
      if (x !== y)
        out.value(
          `row ${r}, column ${header[c] ?? c}`,
          show(x),
          show(y),
          `recorded ${show(x)}, recomputed ${show(y)}`,
        );
    }
    r += 1;
  }
}

/**
 * Compares a release file with its recomputation, both on disk, reading them a chunk or a line at
 * a time: no difference when their texts are equal; otherwise, by kind, each differing JSON leaf
 * (`.json`; the two documents are parsed whole), each differing leaf of each non-empty line
 * (`.jsonl`), each differing cell (`.csv`), or, when none of these names a difference, the first
 * differing lines. At most {@link MAX_PER_FILE} per file, then one saying how many more. The
 * same mismatches, in the same order, as comparing the two whole texts.
 *
 * @param readBytes - bytes read at a time (64 KiB; tests pass a few bytes, to cut lines, CSV
 *   fields and UTF-8 characters between reads).
 * @throws when a file cannot be read.
 */
export async function compareReleaseFile(
  file: string,
  recordedPath: string,
  recomputedPath: string,
  readBytes = READ_BYTES,
): Promise<VerifyMismatch[]> {
  const lines = await differingLines(file, recordedPath, recomputedPath, readBytes);
  if (lines === null) return [];
  const out = new FileMismatches(file);
  try {
    if (file.endsWith('.json')) await jsonDiffs(out, recordedPath, recomputedPath);
    else if (file.endsWith('.jsonl'))
      await jsonlDiffs(out, recordedPath, recomputedPath, readBytes);
    else if (file.endsWith('.csv')) await csvDiffs(out, recordedPath, recomputedPath, readBytes);
  } catch (error) {
    out.value(null, null, null, `unparseable: ${(error as Error).message}`);
  }
  return out.total === 0 ? lines : out.result();
}
