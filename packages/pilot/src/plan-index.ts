import {
  type PlannedBlock,
  PlannedBlockSchema,
  type PlannedRequest,
  PlannedRequestSchema,
  parseWith,
  RunFolderDamagedError,
  type RunPlan,
} from '@chi/spec';

/**
 * The plan of a run as a session holds it, in memory that does not grow with the heap's
 * objects: the bytes of `plan.json` (off the JavaScript heap), where each request and block
 * starts and ends in them, and what the scheduler and the held state ask of every request
 * packed in typed arrays indexed by its ordinal (its position in `plan.requests`). A request or
 * block is parsed from its own bytes when a step needs it, and dropped after.
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

/** The ordinal of each request ID, failing on one the plan does not have. */
function ordinalLookup(plan: RunPlan, path: string): (requestId: string) => number {
  const ordinals = new Map(plan.requests.map((request, index) => [request.requestId, index]));
  return (requestId) => {
    const ordinal = ordinals.get(requestId);
    if (ordinal === undefined)
      throw new RunFolderDamagedError(
        path,
        `it names request ${requestId}, which it does not plan`,
      );
    return ordinal;
  };
}

/** What a {@link PlanIndex} holds: the file's bytes, byte ranges and packed columns, no object of the plan. */
interface PlanColumns {
  readonly text: Buffer;
  readonly requestRanges: ElementRanges;
  readonly blockRanges: ElementRanges;
  readonly dependsOn: Rows;
  readonly blockRows: Rows;
  readonly source: Int32Array;
  readonly named: Uint8Array;
  readonly writes: Uint8Array;
  readonly blockOf: Int32Array;
  readonly seeds: Float64Array;
  readonly blockIds: readonly string[];
}

/** Packs the columns of a parsed plan (its lookups by ID are dropped on return). */
function packColumns(bytes: Uint8Array, plan: RunPlan, path: string): PlanColumns {
  const { requests, blocks } = plan;
  const ordinalOf = ordinalLookup(plan, path);
  const blockOrdinals = new Map(blocks.map((block, index) => [block.blockId, index]));
  const count = requests.length;
  const columns = {
    text: Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes),
    requestRanges: elementRanges(bytes, 'requests', count),
    blockRanges: elementRanges(bytes, 'blocks', blocks.length),
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
  const { text, requestRanges, blockRanges } = columns;
  const parse = (ranges: ElementRanges, ordinal: number): unknown =>
    JSON.parse(text.toString('utf8', ranges.start[ordinal], ranges.end[ordinal]));
  return {
    requestCount: columns.seeds.length,
    blockCount: columns.blockIds.length,
    requestAt: (ordinal) => parsers.request(parse(requestRanges, ordinal)),
    blockAt: (ordinal) => parsers.block(parse(blockRanges, ordinal)),
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
 * read here once and may be dropped after). Fails, naming `path`, on a request ID or block ID
 * the plan names but does not plan.
 */
export function indexPlan(
  bytes: Uint8Array,
  plan: RunPlan,
  path: string,
  parsers: PlanParsers = PLAN_SCHEMA_PARSERS,
): PlanIndex {
  return indexOver(packColumns(bytes, plan, path), parsers);
}
