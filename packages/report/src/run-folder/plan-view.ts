import {
  FileWindow,
  indexPlan,
  lazyArray,
  PLAN_SCHEMA_PARSERS,
  type PlanIndex,
  RUN_FILE_NAME,
} from '@chi/run/internal';
import {
  InvalidArgumentError,
  type PlannedBlock,
  type PlannedRequest,
  parseWith,
  type RunPlan,
} from '@chi/spec';
import { RunPlanSchema } from '@chi/spec/internal';

const PLAN_FILE = RUN_FILE_NAME.plan;

/** The index behind each plan `readPlanView` gave (a plan built by hand has none). */
const INDEXES = new WeakMap<RunPlan, PlanIndex>();

/**
 * The plan over its index: `requests` and `blocks` are read-only arrays (see `lazyArray`) whose
 * elements are parsed from their bytes when reached, each a new object equal to the element
 * `RunPlanSchema` parses. `onParse` is told `plan.json:request:<i>` (or `block:<i>`) for
 * every element parsed.
 */
function planOver(index: PlanIndex, onParse: ((path: string) => void) | undefined): RunPlan {
  const refusal = `the plan read from ${PLAN_FILE} is read-only`;
  const requests = lazyArray<PlannedRequest>(
    index.requestCount,
    (ordinal) => {
      onParse?.(`${PLAN_FILE}:request:${ordinal}`);
      return index.requestAt(ordinal);
    },
    refusal,
  );
  const blocks = lazyArray<PlannedBlock>(
    index.blockCount,
    (ordinal) => {
      onParse?.(`${PLAN_FILE}:block:${ordinal}`);
      return index.blockAt(ordinal);
    },
    refusal,
  );
  const plan = Object.freeze({
    kind: 'run-plan',
    schemaVersion: 1,
    requests: requests as PlannedRequest[],
    blocks: blocks as PlannedBlock[],
  } as const);
  INDEXES.set(plan, index);
  return plan;
}

/**
 * Reads `plan.json` as the report holds it: `bytes` (the file at `path`) are parsed and validated
 * whole with `RunPlanSchema` here, once (the same errors as parsing it whole), then dropped. What
 * is kept is `@chi/run`'s {@link PlanIndex} without the file's bytes (where each element is, the
 * request IDs and typed columns) and a plan whose requests and blocks are read back from the file
 * through a 1 MiB window ({@link FileWindow}) and parsed when reached. Held parsed, the v0.1 plan
 * took about 0.07 MB of live heap a world; held as bytes, about 0.09 MB a world off the heap.
 *
 * @throws InvalidArgumentError (not JSON) or ValidationError (not a plan) naming `plan.json`;
 * RunFolderDamagedError when the plan names a request or block it does not plan
 */
export function readPlanView(
  bytes: Buffer,
  path: string,
  onParse?: (path: string) => void,
): RunPlan {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new InvalidArgumentError(PLAN_FILE, `expected JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const parsed = parseWith(RunPlanSchema, value, PLAN_FILE);
  const window = new FileWindow(path);
  const read = (start: number, end: number) => window.bytes(start, end).toString('utf8');
  return planOver(indexPlan(bytes, parsed, PLAN_FILE, PLAN_SCHEMA_PARSERS, read), onParse);
}

/**
 * The ordinal (position in `plan.requests`) of each request ID, -1 for one the plan does not
 * have; the last one when an ID repeats. For a plan `readPlanView` gave, its index's hash
 * table (no request is parsed); for a plan built by hand, a map made here once.
 */
export function requestOrdinalOf(plan: RunPlan): (requestId: string) => number {
  const index = INDEXES.get(plan);
  if (index !== undefined) return (requestId) => index.ordinalOf(requestId);
  const ordinals = new Map(plan.requests.map((request, ordinal) => [request.requestId, ordinal]));
  return (requestId) => ordinals.get(requestId) ?? -1;
}

/** The planned request `requestId`, parsed now, or undefined when the plan does not have it. */
export function plannedRequestOf(plan: RunPlan): (requestId: string) => PlannedRequest | undefined {
  const ordinalOf = requestOrdinalOf(plan);
  return (requestId) => {
    const ordinal = ordinalOf(requestId);
    return ordinal === -1 ? undefined : plan.requests[ordinal];
  };
}

/**
 * The ordinals of the plan's requests grouped by `keyOf` (a request whose key is null is left
 * out), each group in plan order: one pass that parses each request once and keeps numbers, not
 * requests. {@link requestsAt} parses a group's requests when it is reached.
 */
export function groupRequestOrdinals(
  plan: RunPlan,
  keyOf: (request: PlannedRequest) => string | null,
): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  plan.requests.forEach((request, ordinal) => {
    const key = keyOf(request);
    if (key === null) return;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [ordinal]);
    else group.push(ordinal);
  });
  return groups;
}

/** The planned requests at `ordinals` (none for undefined), parsed now, in that order. */
export function requestsAt(
  plan: RunPlan,
  ordinals: readonly number[] | undefined,
): PlannedRequest[] {
  return (ordinals ?? []).map((ordinal) => plan.requests[ordinal] as PlannedRequest);
}
