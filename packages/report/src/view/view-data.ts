import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RUN_FOLDER_DIRECTORY } from '@chi/run';
import { HISTORY_IDS } from '@chi/spec';
import { formatTrace } from '../case-examples';
import { type ChartData, ChartDataSchema, type MemoryCondition } from '../chart-data';
import { evidenceBanner } from '../evidence-label';
import { comparisonBlocks } from '../report-comparisons';
import type { ReportBlock } from '../report-document';
import { summaryBlocks } from '../report-summary';
import { type RunRecords, readRunFolder } from '../run-folder';
import { scoreRun } from '../score-run';
import { SHA256SUMS_FILE } from '../sha256-sums';
import { readViewProgress, type ViewProgress } from './view-progress';

/** One try of an attempt, as the viewer's attempt log shows it. */
export interface ViewTry {
  readonly tryIndex: number;
  readonly status: number | null;
  readonly failure: string;
  readonly waitMs: number | null;
}

/** One line of a request's attempt log. */
export interface ViewAttempt {
  readonly attemptId: string;
  readonly phase: string;
  readonly at: string;
  readonly failure: string | null;
  readonly failureDetail: string | null;
  readonly tries: readonly ViewTry[];
  readonly chargedUsd: number | null;
  readonly latencyMs: number | null;
}

/** One memory probe or history decision, with everything needed to show it on its own page. */
export interface ViewProbe {
  /** Unique within the view, e.g. `<system>|<seed>|<condition>|<load>|<probeId>`. */
  readonly key: string;
  readonly experiment: 'memory' | 'history';
  readonly systemId: string;
  readonly worldSeed: number;
  /** The cell within the world: `N=32`, `N=32 blank`, `history A, checkpoint 2`. */
  readonly cell: string;
  /** The cell as a URL segment: `notebook-32`, `blank-32`, `A-c2`. */
  readonly cellPath: string;
  /** Order of the cell within a world (memory loads, then controls, then history checkpoints). */
  readonly cellOrder: number;
  /** Memory load and condition; null for a history decision. */
  readonly load: number | null;
  readonly condition: MemoryCondition | null;
  readonly blockComplete: boolean;
  readonly probeId: string;
  readonly stratum: string;
  readonly verdict: string;
  readonly reason: string;
  readonly expectedValue: string | null;
  readonly expectedSource: string | null;
  /** The model's answer for this probe as scored (status, value, source). */
  readonly answer: string;
  /** The question object exactly as it stood in the request's QUESTIONS block. */
  readonly question: unknown;
  /** The request that asked it (its messages and attempt log are keyed by this id). */
  readonly requestId: string | null;
  /** Key of the notebook the model had when it was asked (null for the oracle control). */
  readonly notebookKey: string | null;
  /** How the expected answer follows from the records. */
  readonly trace: string;
}

/** A system as the viewer lists it. */
export interface ViewSystem {
  readonly id: string;
  readonly model: string;
  readonly evidenceClass: string;
  /** A declared reference condition (uncapped notebook), not an evaluated system. */
  readonly reference: boolean;
}

/** Everything the viewer shows: the same object is served at `/api/data` and bundled. */
export interface ViewData {
  readonly kind: 'chi-view-data';
  readonly runId: string;
  readonly protocol: string;
  /** The scripted-baseline banner, or null for an all-live run. */
  readonly banner: string | null;
  readonly systems: readonly ViewSystem[];
  /** The report's summary and paired comparisons (a release's chart data), or null before the run was released. */
  readonly summary: readonly ReportBlock[] | null;
  readonly probes: readonly ViewProbe[];
  /** Rendered messages of every probe request, by request id. */
  readonly requests: Readonly<Record<string, readonly { role: string; content: string }[]>>;
  /** The model's raw reply text per request (last resolved attempt), by request id. */
  readonly replies: Readonly<Record<string, string | null>>;
  /** Attempt log per probe request, in log order. */
  readonly attempts: Readonly<Record<string, readonly ViewAttempt[]>>;
  /** Notebook text by notebook key. */
  readonly notebooks: Readonly<Record<string, string>>;
  /** Progress when the data was read; the server also answers `/api/progress` live. */
  readonly progress: ViewProgress;
}

/** The elements of a JSON block (`BEGIN <NAME> JSON` ... `END <NAME> JSON`), or null. */
export function jsonBlockElements(text: string, name: string): unknown[] | null {
  const lines = text.split('\n');
  const start = lines.indexOf(`BEGIN ${name} JSON`);
  if (start < 0) return null;
  const stop = lines.indexOf(`END ${name} JSON`, start + 1);
  if (stop < 0) return null;
  try {
    const value = JSON.parse(lines.slice(start + 1, stop).join('\n')) as unknown;
    return Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

async function readChartData(dir: string): Promise<ChartData | null> {
  for (const path of [
    'chart-data/chart-data.json',
    `${RUN_FOLDER_DIRECTORY.release}/chart-data/chart-data.json`,
  ]) {
    try {
      return ChartDataSchema.parse(JSON.parse(await readFile(join(dir, path), 'utf8')));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return null;
}

function attemptLog(records: RunRecords): Map<string, ViewAttempt[]> {
  const log = new Map<string, ViewAttempt[]>();
  for (const a of records.attempts) {
    const list = log.get(a.requestId) ?? [];
    list.push({
      attemptId: a.attemptId,
      phase: a.phase,
      at: a.at,
      failure: a.result?.failure ?? null,
      failureDetail: a.result?.failureDetail ?? a.reason ?? null,
      tries: (a.result?.tries ?? []).map((t) => ({
        tryIndex: t.tryIndex,
        status: t.status,
        failure: t.failure,
        waitMs: t.waitMs,
      })),
      chargedUsd: a.result?.chargedUsd ?? null,
      latencyMs: a.result?.latencyMs ?? null,
    });
    log.set(a.requestId, list);
  }
  return log;
}

function answerText(answer: {
  readonly status: string;
  readonly value: string | null;
  readonly source: string | null;
  readonly detail: string | null;
}): string {
  return answer.status === 'answered'
    ? `value ${answer.value ?? 'null'}, source ${answer.source ?? 'null'}`
    : `${answer.status}${answer.detail === null ? '' : ` (${answer.detail})`}`;
}

const CHECKPOINT_MEANING = [
  'no evidence yet: unknown is warranted',
  'after ingesting the history',
  'after one neutral maintenance invocation',
  'after a second neutral maintenance invocation',
  'after the authoritative correction that reverses the earlier evidence',
];

/** History decisions as probes: one per history x checkpoint x environment. */
function historyProbes(
  records: RunRecords,
  scores: ReturnType<typeof scoreRun>,
  log: ReadonlyMap<string, ViewAttempt[]>,
  requests: Record<string, { role: string; content: string }[]>,
  replies: Record<string, string | null>,
  attempts: Record<string, ViewAttempt[]>,
  notebooks: Record<string, string>,
): ViewProbe[] {
  return scores.historyTraces.map((line) => {
    const t = line.trace;
    const requestId = `${line.systemId}.history.w${line.worldSeed}.${t.history}.c${t.checkpoint}.probe`;
    const request = records.requests.get(requestId);
    let question: unknown = null;
    if (request !== undefined) {
      const text = request.messages.map((m) => m.content).join('\n');
      question = (jsonBlockElements(text, 'QUESTIONS') ?? [])[t.environmentIndex] ?? null;
      if (requests[requestId] === undefined) {
        requests[requestId] = request.messages.map((m) => ({ role: m.role, content: m.content }));
        const resolved = records.attempts.filter(
          (a) => a.requestId === requestId && a.phase === 'after_response',
        );
        replies[requestId] = resolved[resolved.length - 1]?.result?.text ?? null;
        attempts[requestId] = log.get(requestId) ?? [];
      }
    }
    const notebookPath = `${RUN_FOLDER_DIRECTORY.notebooks}/${line.systemId}/history/w${line.worldSeed}-${t.history}-c${t.checkpoint}.json`;
    const notebook = records.notebooks.get(notebookPath)?.text;
    if (notebook !== undefined) notebooks[notebookPath] = notebook;
    const environment = (question as { id?: unknown } | null)?.id;
    return {
      key: `${line.systemId}|${line.worldSeed}|${t.history}|c${t.checkpoint}|${t.environmentIndex}`,
      experiment: 'history' as const,
      systemId: line.systemId,
      worldSeed: line.worldSeed,
      cell: `history ${t.history}, checkpoint ${t.checkpoint}`,
      cellPath: `${t.history}-c${t.checkpoint}`,
      cellOrder: 1_000_000 + HISTORY_IDS.indexOf(t.history) * 10 + t.checkpoint,
      load: null,
      condition: null,
      blockComplete: line.blockComplete,
      probeId:
        typeof environment === 'string' ? environment : `environment ${t.environmentIndex + 1}`,
      stratum: `history ${t.history}`,
      verdict: t.verdict,
      reason: t.reason,
      expectedValue: t.expected,
      expectedSource: null,
      answer: t.answer,
      question,
      requestId: request === undefined ? null : requestId,
      notebookKey: notebook === undefined ? null : notebookPath,
      trace: [
        `decision: history ${t.history}, checkpoint ${t.checkpoint} (${CHECKPOINT_MEANING[t.checkpoint] ?? ''}), environment ${t.environmentIndex + 1}`,
        `warranted answer: ${t.expected} (option A, option B or unknown, from the evidence the history gave up to this checkpoint)`,
        `answer: ${t.answer}`,
        `verdict: ${t.verdict} (${t.reason})`,
      ].join('\n'),
    };
  });
}

/**
 * Reads a run folder or a release (both hold the raw run files) into what the viewer shows: every
 * memory probe with the question as sent, the expected answer and its trace, the model's reply,
 * the verdict and reason, the notebook it had and the attempt log of its request; the summary when
 * the folder holds a release's chart data; and the progress of the run.
 */
export async function readViewData(dir: string): Promise<ViewData> {
  // A release has no attempt-log anchor file (private to the run folder): read as a release.
  const records = await readRunFolder(dir, { release: existsSync(join(dir, SHA256SUMS_FILE)) });
  const scores = scoreRun(records);
  const chartData = await readChartData(dir);
  const log = attemptLog(records);

  // which probe request asked each probe, and the question object as it was sent
  const asked = new Map<string, { requestId: string; question: unknown; blockId: string }>();
  for (const planned of records.plan.requests) {
    if (planned.task !== 'memory_probe' && planned.task !== 'memory_probe_oracle') continue;
    const request = records.requests.get(planned.requestId);
    if (request === undefined) continue;
    const text = request.messages.map((m) => m.content).join('\n');
    for (const question of jsonBlockElements(text, 'QUESTIONS') ?? []) {
      const id = (question as { id?: unknown }).id;
      if (typeof id !== 'string') continue;
      asked.set(
        `${planned.systemId}|${planned.worldSeed}|${planned.condition ?? 'notebook'}|${planned.load}|${id}`,
        { requestId: planned.requestId, question, blockId: planned.blockId },
      );
    }
  }

  const requests: Record<string, { role: string; content: string }[]> = {};
  const replies: Record<string, string | null> = {};
  const attempts: Record<string, ViewAttempt[]> = {};
  const notebooks: Record<string, string> = {};
  const conditionRank = { notebook: 0, blank: 1, oracle: 2, replay: 3 } as const;
  const memoryProbes: ViewProbe[] = scores.memoryTraces.map((line) => {
    const t = line.trace;
    const key = `${line.systemId}|${line.worldSeed}|${line.condition}|${line.load}|${t.probeId}`;
    const source = asked.get(key);
    let notebookKey: string | null = null;
    if (source !== undefined) {
      const request = records.requests.get(source.requestId);
      if (request !== undefined && requests[source.requestId] === undefined) {
        requests[source.requestId] = request.messages.map((m) => ({
          role: m.role,
          content: m.content,
        }));
        const resolved = records.attempts.filter(
          (a) => a.requestId === source.requestId && a.phase === 'after_response',
        );
        replies[source.requestId] = resolved[resolved.length - 1]?.result?.text ?? null;
        attempts[source.requestId] = log.get(source.requestId) ?? [];
      }
      const notebook = scores.probeNotebooks.get(
        `${line.systemId}|${source.blockId}|${line.condition}`,
      );
      if (notebook !== undefined && notebook !== null) {
        notebookKey = `${line.systemId}|${source.blockId}|${line.condition}`;
        notebooks[notebookKey] = notebook;
      }
    }
    return {
      key,
      experiment: 'memory',
      systemId: line.systemId,
      worldSeed: line.worldSeed,
      cell: line.condition === 'notebook' ? `N=${line.load}` : `N=${line.load} ${line.condition}`,
      cellPath: `${line.condition}-${line.load}`,
      cellOrder: line.load * 10 + conditionRank[line.condition],
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
      question: source?.question ?? null,
      requestId: source?.requestId ?? null,
      notebookKey,
      trace: formatTrace(t),
    };
  });

  const probes = [
    ...memoryProbes,
    ...historyProbes(records, scores, log, requests, replies, attempts, notebooks),
  ];
  const runFacts = chartData?.run;
  return {
    kind: 'chi-view-data',
    runId: records.status?.runId ?? runFacts?.runId ?? records.manifestSha256.slice(0, 12),
    protocol: records.manifest.protocol,
    banner: evidenceBanner([
      records.manifest.evidenceClass,
      ...records.manifest.systems.map((s) => s.evidenceClass),
    ]),
    systems: records.manifest.systems.map((s) => ({
      id: s.id,
      model: s.model,
      evidenceClass: s.evidenceClass,
      reference: s.uncappedNotebook === true,
    })),
    summary:
      chartData === null ? null : [...summaryBlocks(chartData), ...comparisonBlocks(chartData)],
    probes,
    requests,
    replies,
    attempts,
    notebooks,
    progress: await readViewProgress(dir),
  };
}
