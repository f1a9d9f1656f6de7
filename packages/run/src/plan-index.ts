import {
  type PlannedBlock,
  type PlannedRequest,
  parseWith,
  RunFolderDamagedError,
  type RunPlan,
} from '@chi/spec';
import { PlannedBlockSchema, PlannedRequestSchema } from '@chi/spec/internal';

/**
 * The plan of a run as the runner's session and the report hold it, in memory that does not
 * grow with the heap's objects: the bytes of `plan.json` (off the JavaScript heap; or none, read
 * back from the file, see {@link indexPlan}), where each request and block starts and ends in
 * them, the request IDs with a hash table of their ordinals, and what the scheduler and the
 * held state ask of every request packed in typed arrays indexed by its ordinal (its position
 * in `plan.requests`). A request or block is parsed from its own bytes when it is needed, and
 * dropped after.
 *
 * Every answer is exactly that of the parsed plan (`plan-index.test.ts`): `requestAt(i)` is
 * `plan.requests[i]` as `RunPlanSchema` parses it, `dependsOn(i)` the ordinals of its
 * `dependsOn` in their order, and so on.
 */
export interface PlanIndex {
  /** Requests in the plan. */
  readonly requestCount: number;
  /** Blocks in the plan. */
  readonly blockCount: number;
  /** Request `ordinal`, parsed from its bytes (a new object at each call). */
  requestAt(ordinal: number): PlannedRequest;
  /** Block `ordinal`, parsed from its bytes (a new object at each call). */
  blockAt(ordinal: number): PlannedBlock;
  /** The `requestId` of request `ordinal`, read from its bytes (no parse of the request). */
  requestIdAt(ordinal: number): string;
  /**
   * The ordinal of the request `requestId` (the last one when the plan repeats an ID), or -1
   * when the plan does not have it: a hash table of ordinals, not a map of the IDs.
   */
  ordinalOf(requestId: string): number;
  /** The ordinals of the requests `ordinal` depends on, in its `dependsOn` order. */
  dependsOn(ordinal: number): Int32Array;
  /** The ordinal of the request whose notebook `ordinal` names as its source, or -1. */
  notebookSourceOf(ordinal: number): number;
  /** Whether a later request names `ordinal` as its notebook source. */
  isNotebookSource(ordinal: number): boolean;
  /** Whether request `ordinal` writes a notebook. */
  writesNotebook(ordinal: number): boolean;
  /** The block ordinal of request `ordinal`. */
  blockOf(ordinal: number): number;
  /** The ID of block `ordinal`. */
  blockIdAt(ordinal: number): string;
  /** The world seed of request `ordinal`. */
  worldSeedOf(ordinal: number): number;
  /** The request ordinals of block `ordinal`, in its `requestIds` order. */
  blockRequests(ordinal: number): Int32Array;
}

/** Where each element of one array of the plan starts and ends in the file's bytes. */
interface ElementRanges {
  readonly start: Uint32Array;
  readonly end: Uint32Array;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The index after the string that starts at `at` (a quote). */
function skipString(bytes: Uint8Array, at: number): number {
  let index = at + 1;
  while (bytes[index] !== QUOTE) index += bytes[index] === BACKSLASH ? 2 : 1;
  return index + 1;
}

/**
 * The byte ranges of the elements of the top-level object's array `key` in a JSON text (any
 * whitespace; UTF-8, so every structural character is one ASCII byte).
 */
function elementRanges(bytes: Uint8Array, key: string, count: number): ElementRanges {
  const start = new Uint32Array(count);
  const end = new Uint32Array(count);
  const wanted = `"${key}"`;
  let depth = 0;
  let inWanted = false;
  let element = 0;
  let lastKey = '';
  for (let index = 0; index < bytes.length; ) {
    const byte = bytes[index] as number;
    if (byte === QUOTE) {
      const after = skipString(bytes, index);
      if (depth === 1) lastKey = Buffer.from(bytes.subarray(index, after)).toString('utf8');
      if (inWanted && depth === 2) start[element] = index;
      if (inWanted && depth === 2) end[element++] = after;
      index = after;
      continue;
    }
    if (byte === 0x7b || byte === 0x5b) {
      if (depth === 1 && lastKey === wanted && byte === 0x5b) inWanted = true;
      else if (inWanted && depth === 2) start[element] = index;
      depth += 1;
    } else if (byte === 0x7d || byte === 0x5d) {
      depth -= 1;
      if (inWanted && depth === 2) end[element++] = index + 1;
      else if (inWanted && depth === 1) inWanted = false;
    } else if (inWanted && depth === 2 && byte > 0x20 && byte !== 0x2c) {
      // A number, true, false or null element.
      start[element] = index;
      while (
        index < bytes.length &&
        ![0x2c, 0x5d, 0x20, 0x0a, 0x0d, 0x09].includes(bytes[index] as number)
      )
        index += 1;
      end[element++] = index;
      continue;
    }
    index += 1;
  }
  if (element !== count)
    throw new Error(`plan index: found ${element} elements of ${key}, expected ${count}`);
  return { start, end };
}

/** A compressed-row table: the items of row `r` are `items[offsets[r] .. offsets[r + 1])`. */
interface Rows {
  readonly offsets: Uint32Array;
  readonly items: Int32Array;
}

function rowsOf(rows: readonly (readonly number[])[]): Rows {
  const offsets = new Uint32Array(rows.length + 1);
  for (let row = 0; row < rows.length; row += 1)
    offsets[row + 1] = (offsets[row] as number) + (rows[row] as readonly number[]).length;
  const items = new Int32Array(offsets[rows.length] as number);
  rows.forEach((row, index) => {
    items.set(row, offsets[index] as number);
  });
  return { offsets, items };
}

function rowOf(rows: Rows, row: number): Int32Array {
  return rows.items.subarray(rows.offsets[row], rows.offsets[row + 1]);
}

/** How a request or block is read back from its bytes (the run's schemas; a test's own). */
export interface PlanParsers {
  readonly request: (value: unknown) => PlannedRequest;
  readonly block: (value: unknown) => PlannedBlock;
}

/** The schemas `RunPlanSchema` parses each request and block with. */
export const PLAN_SCHEMA_PARSERS: PlanParsers = {
  request: (value) => parseWith(PlannedRequestSchema, value, 'planned request'),
  block: (value) => parseWith(PlannedBlockSchema, value, 'planned block'),
};

const COLON = 0x3a;

function isJsonSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** The string whose JSON token (quotes included) is `bytes[start, end)`. */
function decodeString(bytes: Buffer, start: number, end: number): string {
  const raw = bytes.toString('utf8', start + 1, end - 1);
  return raw.includes('\\') ? (JSON.parse(bytes.toString('utf8', start, end)) as string) : raw;
}

/**
 * The byte range of the string value of `key` in the object that starts at `from` (its `{`):
 * a key of that object, not of one nested in it.
 */
function stringFieldRange(bytes: Buffer, from: number, key: string): [number, number] {
  let depth = 0;
  let wanted = false;
  for (let index = from; index < bytes.length; ) {
    const byte = bytes[index] as number;
    if (byte === QUOTE) {
      const after = skipString(bytes, index);
      if (depth === 1 && wanted) return [index, after];
      let next = after;
      while (isJsonSpace(bytes[next])) next += 1;
      if (depth === 1 && bytes[next] === COLON && decodeString(bytes, index, after) === key)
        wanted = true;
      index = after;
      continue;
    }
    if (byte === 0x7b || byte === 0x5b) depth += 1;
    else if (byte === 0x7d || byte === 0x5d) depth -= 1;
    if (depth === 0) break;
    index += 1;
  }
  throw new Error(`plan index: no string ${key} in the element at byte ${from}`);
}

/** FNV-1a of a string's UTF-16 code units. */
function hashOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1)
    hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
  return hash >>> 0;
}

/**
 * The request IDs of a plan, without a string of them on the heap: each one's JSON token copied
 * from the file into one buffer (token `i` is `bytes[offsets[i], offsets[i + 1])`), and an
 * open-addressing hash table of ordinals (at most half full) over them.
 */
interface RequestIds {
  readonly bytes: Buffer;
  readonly offsets: Uint32Array;
  readonly table: Int32Array;
}

function requestIdAt(ids: RequestIds, ordinal: number): string {
  return decodeString(
    ids.bytes,
    ids.offsets[ordinal] as number,
    ids.offsets[ordinal + 1] as number,
  );
}

/** The table slot of `requestId`: the slot that holds its ordinal, or the empty slot it would take. */
function slotOf(ids: RequestIds, requestId: string): number {
  const mask = ids.table.length - 1;
  for (let slot = hashOf(requestId) & mask; ; slot = (slot + 1) & mask) {
    const ordinal = ids.table[slot] as number;
    if (ordinal === -1 || requestIdAt(ids, ordinal) === requestId) return slot;
  }
}

/** The ordinal of `requestId`, or -1 when the plan does not have it. */
function ordinalIn(ids: RequestIds, requestId: string): number {
  return ids.table[slotOf(ids, requestId)] as number;
}

/** Copies and hashes the request IDs (checked against the parsed plan's). */
function requestIdsOf(text: Buffer, requests: ElementRanges, plan: RunPlan): RequestIds {
  const count = plan.requests.length;
  const tokens = plan.requests.map((_, ordinal) =>
    stringFieldRange(text, requests.start[ordinal] as number, 'requestId'),
  );
  const offsets = new Uint32Array(count + 1);
  tokens.forEach(([start, end], ordinal) => {
    offsets[ordinal + 1] = (offsets[ordinal] as number) + end - start;
  });
  const bytes = Buffer.alloc(offsets[count] as number);
  tokens.forEach(([start, end], ordinal) => {
    text.copy(bytes, offsets[ordinal], start, end);
  });
  let size = 2;
  while (size < 2 * count) size *= 2;
  const ids: RequestIds = { bytes, offsets, table: new Int32Array(size).fill(-1) };
  plan.requests.forEach((request, ordinal) => {
    if (requestIdAt(ids, ordinal) !== request.requestId)
      throw new Error(`plan index: request ${ordinal} is not where the parsed plan has it`);
    ids.table[slotOf(ids, request.requestId)] = ordinal;
  });
  return ids;
}

/** The ordinal of each request ID, failing on one the plan does not have. */
function ordinalLookup(ids: RequestIds, path: string): (requestId: string) => number {
  return (requestId) => {
    const ordinal = ordinalIn(ids, requestId);
    if (ordinal === -1)
      throw new RunFolderDamagedError(
        path,
        `it names request ${requestId}, which it does not plan`,
      );
    return ordinal;
  };
}

/**
 * Reads bytes `[start, end)` of `plan.json` back as text, for an index that does not hold the
 * file's bytes (the report reads them from the file through a window).
 */
export type PlanTextReader = (start: number, end: number) => string;

/** What a {@link PlanIndex} holds: the file's bytes, byte ranges and packed columns, no object of the plan. */
interface PlanColumns {
  readonly read: PlanTextReader;
  readonly requestRanges: ElementRanges;
  readonly blockRanges: ElementRanges;
  readonly requestIds: RequestIds;
  readonly dependsOn: Rows;
  readonly blockRows: Rows;
  readonly source: Int32Array;
  readonly named: Uint8Array;
  readonly writes: Uint8Array;
  readonly blockOf: Int32Array;
  readonly seeds: Float64Array;
  readonly blockIds: readonly string[];
}

/** Packs the columns of a parsed plan (its map of block IDs is dropped on return). */
function packColumns(
  bytes: Uint8Array,
  plan: RunPlan,
  path: string,
  read: PlanTextReader | undefined,
): PlanColumns {
  const { requests, blocks } = plan;
  const text = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes);
  const count = requests.length;
  const requestRanges = elementRanges(text, 'requests', count);
  const requestIds = requestIdsOf(text, requestRanges, plan);
  const ordinalOf = ordinalLookup(requestIds, path);
  const blockOrdinals = new Map(blocks.map((block, index) => [block.blockId, index]));
  const columns = {
    read: read ?? ((start: number, end: number) => text.toString('utf8', start, end)),
    requestRanges,
    blockRanges: elementRanges(text, 'blocks', blocks.length),
    requestIds,
    dependsOn: rowsOf(requests.map((request) => request.dependsOn.map(ordinalOf))),
    blockRows: rowsOf(blocks.map((block) => block.requestIds.map(ordinalOf))),
    source: new Int32Array(count).fill(-1),
    named: new Uint8Array(count),
    writes: new Uint8Array(count),
    blockOf: new Int32Array(count),
    seeds: new Float64Array(count),
    blockIds: blocks.map((block) => block.blockId),
  };
  requests.forEach((request, index) => {
    const from = request.notebookSource;
    if (from !== undefined && from.kind !== 'empty') {
      const source = ordinalOf(from.requestId);
      columns.source[index] = source;
      columns.named[source] = 1;
    }
    columns.writes[index] = request.writesNotebook ? 1 : 0;
    const block = blockOrdinals.get(request.blockId);
    if (block === undefined)
      throw new RunFolderDamagedError(
        path,
        `request ${request.requestId} names block ${request.blockId}, which it does not plan`,
      );
    columns.blockOf[index] = block;
    columns.seeds[index] = request.worldSeed;
  });
  return columns;
}

/** The index over packed columns (its closures hold the columns and nothing else). */
function indexOver(columns: PlanColumns, parsers: PlanParsers): PlanIndex {
  const { read, requestRanges, blockRanges, requestIds } = columns;
  const parse = (ranges: ElementRanges, ordinal: number): unknown =>
    JSON.parse(read(ranges.start[ordinal] as number, ranges.end[ordinal] as number));
  return {
    requestCount: columns.seeds.length,
    blockCount: columns.blockIds.length,
    requestAt: (ordinal) => parsers.request(parse(requestRanges, ordinal)),
    blockAt: (ordinal) => parsers.block(parse(blockRanges, ordinal)),
    requestIdAt: (ordinal) => requestIdAt(requestIds, ordinal),
    ordinalOf: (requestId) => ordinalIn(requestIds, requestId),
    dependsOn: (ordinal) => rowOf(columns.dependsOn, ordinal),
    notebookSourceOf: (ordinal) => columns.source[ordinal] as number,
    isNotebookSource: (ordinal) => columns.named[ordinal] === 1,
    writesNotebook: (ordinal) => columns.writes[ordinal] === 1,
    blockOf: (ordinal) => columns.blockOf[ordinal] as number,
    blockIdAt: (ordinal) => columns.blockIds[ordinal] as string,
    worldSeedOf: (ordinal) => columns.seeds[ordinal] as number,
    blockRequests: (ordinal) => rowOf(columns.blockRows, ordinal),
  };
}

/**
 * Indexes a plan: `bytes` is the text of `plan.json` and `plan` the same text parsed (it is
 * read here once and may be dropped after). The index keeps `bytes` and parses each request or
 * block from them; given `read`, it keeps no byte of the file but each request ID and reads an
 * element's text through `read` instead. Fails, naming `path`, on a request ID or block ID the
 * plan names but does not plan.
 *
 * @example
 * ```ts
 * const bytes = await readFile(paths.plan);
 * const index = indexPlan(bytes, parseWith(RunPlanSchema, JSON.parse(bytes.toString()), 'plan.json'), 'plan.json');
 * const first = index.requestAt(0); // parsed now, a new object at each call
 * ```
 */
export function indexPlan(
  bytes: Uint8Array,
  plan: RunPlan,
  path: string,
  parsers: PlanParsers = PLAN_SCHEMA_PARSERS,
  read?: PlanTextReader,
): PlanIndex {
  return indexOver(packColumns(bytes, plan, path, read), parsers);
}
