import type {
  BehaviorTraceLine,
  HistoryTraceLine,
  MemoryTraceLine,
  RunScores,
} from '@chi/analysis';
import {
  isBehaviorTraceLine,
  isHistoryTraceLine,
  isMemoryTraceLine,
  traceLinesOf,
} from '@chi/analysis';
import type { MemoryCondition } from '@chi/analysis/internal';
import { jsonBlockIds, runFolderPaths } from '@chi/run/internal';
import type { PlannedRequest } from '@chi/spec';
import { HISTORY_IDS } from '@chi/spec/internal';
import { formatTrace } from '../release/case-examples';
import type { RunRecords } from '../run-folder/run-folder';

/** One scored item (memory probe, history decision, behavioral item) as the viewer lists it. */
export interface ViewItem {
  /** Unique within the run: `<system>|<seed>|<cellPath>|<itemId>`. */
  readonly key: string;
  readonly experiment: 'memory' | 'history' | 'behavior';
  readonly systemId: string;
  readonly worldSeed: number;
  /** The cell within the world: `N=32`, `N=32 blank`, `history A, checkpoint 2`, `behavior, half 1`. */
  readonly cell: string;
  /** The cell as a URL segment: `notebook-32`, `blank-32`, `A-c2`, `behavior-h1`. */
  readonly cellPath: string;
  /** Order of the cell within a world (memory loads, controls, history checkpoints, behavior). */
  readonly cellOrder: number;
  /** Memory load and condition; null outside memory. */
  readonly load: number | null;
  readonly condition: MemoryCondition | null;
  readonly blockComplete: boolean;
  /** The probe, environment or behavioral item ID. */
  readonly probeId: string;
  readonly stratum: string;
  readonly verdict: string;
  readonly reason: string;
  readonly expectedValue: string | null;
  /** Memory only: the source of the expected answer. */
  readonly expectedSource: string | null;
  /** The model's answer as scored. */
  readonly answer: string;
  /** The request that asked it (its messages and attempt log are keyed by this ID). */
  readonly requestId: string | null;
  /** Where the notebook the model had is (relative to the run folder), or null. */
  readonly notebookPath: string | null;
  /** Why there is no notebook file (oracle control, blank control), or null. */
  readonly notebookNote: string | null;
  /** How the expected answer follows from the records. */
  readonly trace: string;
}

function answerText(answer: {
  readonly status: string;
  readonly value?: string | null;
  readonly answer?: string | null;
  readonly source?: string | null;
  readonly detail: string | null;
}): string {
  if (answer.status !== 'answered')
    return `${answer.status}${answer.detail === null ? '' : ` (${answer.detail})`}`;
  if (answer.answer !== undefined) return answer.answer ?? 'null';
  return `value ${answer.value ?? 'null'}, source ${answer.source ?? 'null'}`;
}

const CHECKPOINT_MEANING = [
  'no evidence yet: unknown is warranted',
  'after ingesting the history',
  'after one neutral maintenance invocation',
  'after a second neutral maintenance invocation',
  'after the authoritative correction that reverses the earlier evidence',
];

/** Run-folder paths relative to the folder (the keys of `RunRecords.notebooks`). */
const RELATIVE = runFolderPaths('.');

const CONDITION_RANK = { notebook: 0, blank: 1, oracle: 2, replay: 3 } as const;

/** A cell of a world: a memory load and condition, a history checkpoint, a behavioral half. */
export interface ViewCellRef {
  readonly cell: string;
  readonly cellPath: string;
  readonly cellOrder: number;
}

function memoryCell(load: number, condition: MemoryCondition): ViewCellRef {
  return {
    cell: condition === 'notebook' ? `N=${load}` : `N=${load} ${condition}`,
    cellPath: `${condition}-${load}`,
    cellOrder: load * 10 + CONDITION_RANK[condition],
  };
}

function historyCell(history: string, checkpoint: number): ViewCellRef {
  return {
    cell: `history ${history}, checkpoint ${checkpoint}`,
    cellPath: `${history}-c${checkpoint}`,
    cellOrder:
      1_000_000 + HISTORY_IDS.indexOf(history as (typeof HISTORY_IDS)[number]) * 10 + checkpoint,
  };
}

function behaviorCell(half: number): ViewCellRef {
  return {
    cell: `behavior, half ${half}`,
    cellPath: `behavior-h${half}`,
    cellOrder: 2_000_000 + half,
  };
}

/**
 * The cell whose items a planned request asks (a memory probe, a history probe, a behavioral
 * half), or null for a request that asks none (an encode, an update).
 */
export function cellOfRequest(request: PlannedRequest): ViewCellRef | null {
  if (
    (request.task === 'memory_probe' || request.task === 'memory_probe_oracle') &&
    request.load !== null
  )
    return memoryCell(request.load, request.condition ?? 'notebook');
  if (request.task === 'history_probe' && request.history !== null && request.checkpoint !== null)
    return historyCell(request.history, request.checkpoint);
  if (request.task === 'behavior_half' && request.half !== null) return behaviorCell(request.half);
  return null;
}

/** Where each planned request of the records is, by a key of its unit. */
interface PlanLookup {
  /** The probe request that asked a memory probe. */
  readonly memoryProbe: (line: MemoryTraceLine) => PlannedRequest | undefined;
  readonly encode: ReadonlyMap<string, string>;
  readonly byId: ReadonlyMap<string, PlannedRequest>;
  /** The first behavior request of a `system|world|half`, in plan order. */
  readonly behavior: ReadonlyMap<string, PlannedRequest>;
}

function behaviorKey(systemId: string, worldSeed: number, half: unknown): string {
  return `${systemId}|${worldSeed}|${String(half)}`;
}

function planLookup(records: RunRecords): PlanLookup {
  const encode = new Map<string, string>();
  const byId = new Map<string, PlannedRequest>();
  const probes = new Map<string, PlannedRequest[]>();
  const behavior = new Map<string, PlannedRequest>();
  for (const request of records.plan.requests) {
    byId.set(request.requestId, request);
    if (request.experiment === 'behavior') {
      const key = behaviorKey(request.systemId, request.worldSeed, request.half);
      if (!behavior.has(key)) behavior.set(key, request);
    }
    if (request.task === 'memory_encode')
      encode.set(`${request.systemId}|${request.worldSeed}|${request.load}`, request.requestId);
    if (request.task === 'memory_probe' || request.task === 'memory_probe_oracle') {
      const key = `${request.systemId}|${request.worldSeed}|${request.load}|${request.condition ?? 'notebook'}`;
      const cell = probes.get(key);
      if (cell === undefined) probes.set(key, [request]);
      else cell.push(request);
    }
  }
  // a batched cell has several probe requests: which one asked a probe is read from their
  // QUESTIONS blocks, once per cell
  const asked = new Map<string, Map<string, PlannedRequest>>();
  const memoryProbe = (line: MemoryTraceLine) => {
    const key = `${line.systemId}|${line.worldSeed}|${line.load}|${line.condition}`;
    const candidates = probes.get(key) ?? [];
    if (candidates.length <= 1) return candidates[0];
    let byProbe = asked.get(key);
    if (byProbe === undefined) {
      byProbe = new Map();
      for (const request of candidates) {
        const messages = records.requests.get(request.requestId)?.messages ?? [];
        const text = messages.map((m) => m.content).join('\n');
        for (const id of jsonBlockIds(text, 'QUESTIONS') ?? []) byProbe.set(id, request);
      }
      asked.set(key, byProbe);
    }
    return byProbe.get(line.trace.probeId);
  };
  return { memoryProbe, encode, byId, behavior };
}

function memoryItem(records: RunRecords, plan: PlanLookup, line: MemoryTraceLine): ViewItem {
  const t = line.trace;
  const request = plan.memoryProbe(line);
  const encode = plan.encode.get(`${line.systemId}|${line.worldSeed}|${line.load}`);
  const notebookPath =
    line.condition === 'notebook' && encode !== undefined
      ? (records.notebookOfRequest.get(encode) ?? null)
      : null;
  const cell = memoryCell(line.load, line.condition);
  return {
    key: `${line.systemId}|${line.worldSeed}|${cell.cellPath}|${t.probeId}`,
    experiment: 'memory',
    systemId: line.systemId,
    worldSeed: line.worldSeed,
    ...cell,
    load: line.load,
    condition: line.condition,
    blockComplete: line.blockComplete,
    probeId: t.probeId,
    stratum: t.stratum,
    verdict: t.verdict,
    reason: t.reason,
    expectedValue: t.expectedValue,
    expectedSource: t.expectedSource,
    answer: answerText(t.answer),
    requestId: request?.requestId ?? null,
    notebookPath,
    notebookNote:
      line.condition === 'oracle'
        ? 'Oracle control: the original records were in context, no notebook.'
        : line.condition === 'blank'
          ? 'Blank control: an empty notebook.'
          : notebookPath === null
            ? 'none'
            : null,
    trace: formatTrace(t),
  };
}

function historyItem(records: RunRecords, plan: PlanLookup, line: HistoryTraceLine): ViewItem {
  const t = line.trace;
  const requestId = `${line.systemId}.history.w${line.worldSeed}.${t.history}.c${t.checkpoint}.probe`;
  const path = records.notebooks.pathOf(
    RELATIVE.historyNotebook(line.systemId, line.worldSeed, t.history, t.checkpoint),
  );
  const cell = historyCell(t.history, t.checkpoint);
  return {
    key: `${line.systemId}|${line.worldSeed}|${cell.cellPath}|${t.environmentIndex}`,
    experiment: 'history',
    systemId: line.systemId,
    worldSeed: line.worldSeed,
    ...cell,
    load: null,
    condition: null,
    blockComplete: line.blockComplete,
    probeId: `env-${t.environmentIndex + 1}`,
    stratum: `history ${t.history}`,
    verdict: t.verdict,
    reason: t.reason,
    expectedValue: t.expected,
    expectedSource: null,
    answer: t.answer,
    requestId: plan.byId.has(requestId) ? requestId : null,
    notebookPath: path ?? null,
    notebookNote: path === undefined ? 'none' : null,
    trace: [
      `decision: history ${t.history}, checkpoint ${t.checkpoint} (${CHECKPOINT_MEANING[t.checkpoint] ?? ''}), environment ${t.environmentIndex + 1}`,
      `warranted answer: ${t.expected} (option A, option B or unknown, from the evidence the history gave up to this checkpoint)`,
      `answer: ${t.answer}`,
      `verdict: ${t.verdict} (${t.reason})`,
    ].join('\n'),
  };
}

function behaviorItem(plan: PlanLookup, line: BehaviorTraceLine): ViewItem {
  const t = line.trace;
  const request = plan.behavior.get(behaviorKey(line.systemId, line.worldSeed, t.half));
  const cell = behaviorCell(t.half);
  return {
    key: `${line.systemId}|${line.worldSeed}|${cell.cellPath}|${t.itemId}`,
    experiment: 'behavior',
    systemId: line.systemId,
    worldSeed: line.worldSeed,
    ...cell,
    load: null,
    condition: null,
    blockComplete: line.blockComplete,
    probeId: t.itemId,
    stratum: `behavior ${t.axis}`,
    verdict: t.verdict,
    reason: t.reason,
    expectedValue: t.expected,
    expectedSource: null,
    answer: answerText(t.answer),
    requestId: request?.requestId ?? null,
    notebookPath: null,
    notebookNote: 'Behavioral items are asked without a notebook.',
    trace: [
      `item: ${t.itemId} (axis ${t.axis}, half ${t.half}${t.pairId === null ? '' : `, pair ${t.pairId}`}${t.frame === null ? '' : `, frame ${t.frame}`})`,
      `expected: ${t.expected}`,
      ...(t.constraints.length === 0 ? [] : [`constraints: ${t.constraints.join('; ')}`]),
      `answer: ${answerText(t.answer)}${t.chosenOption === null ? '' : ` (option ${t.chosenOption + 1})`}`,
      `verdict: ${t.verdict} (${t.reason})`,
    ].join('\n'),
  };
}

/**
 * Every scored item of `scores` (scored from `records`, a few worlds of a run) as the viewer lists
 * it, in world, cell and item order.
 */
export function viewItemsOf(records: RunRecords, scores: RunScores): ViewItem[] {
  const plan = planLookup(records);
  const items = [
    ...traceLinesOf(scores, 'memory', isMemoryTraceLine).map((line) =>
      memoryItem(records, plan, line),
    ),
    ...traceLinesOf(scores, 'history', isHistoryTraceLine).map((line) =>
      historyItem(records, plan, line),
    ),
    ...traceLinesOf(scores, 'behavior', isBehaviorTraceLine).map((line) =>
      behaviorItem(plan, line),
    ),
  ];
  return items.sort((a, b) => a.worldSeed - b.worldSeed || a.cellOrder - b.cellOrder);
}
