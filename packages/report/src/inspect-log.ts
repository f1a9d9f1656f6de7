import { createHash } from 'node:crypto';
import {
  type AnyExperimentScorer,
  jsonBlockIds,
  outcomesFromAttemptLog,
  type RequestOutcome,
  RUN_FILE_NAME,
} from '@chi/run';
import type {
  ChatMessage,
  ChatResult,
  ExperimentKind,
  PlannedRequest,
  RunManifest,
  SystemSpec,
} from '@chi/spec';
import { BUILT_IN_SCORERS } from './experiment-scorers/module-scores';
import { moduleInspectLogs } from './inspect-module-log';
import { REPORT_VERSION } from './release-files';
import type { RunRecords } from './run-folder';
import { type RunScores, scoreRun } from './score-run';
import { compareUtf8 } from './sha256-sums';

/**
 * The Inspect (UK AISI) release whose evaluation-log model these logs follow: `EvalLog` of
 * inspect_ai at tag 0.3.260 (commit 3f294e61b823). Tests validate every exported log against
 * a conformance schema we wrote from that model,
 * `test/fixtures/inspect/eval-log-conformance.schema.json`.
 */
export const INSPECT_LOG_SCHEMA_RELEASE = 'inspect_ai 0.3.260';

/** One scored question of a sample: its ID, verdict and reason (from the release traces). */
interface ItemVerdict {
  readonly id: string;
  readonly expected: unknown;
  readonly verdict: string;
  readonly reason: string;
}

/** A JSON value as Inspect logs hold it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** An Inspect `EvalLog` (log format version 2), as plain JSON. */
export type InspectEvalLog = { [key: string]: Json };

const SCORER = 'chi_item_accuracy';
const SCORED_TASKS = new Set([
  'memory_probe',
  'memory_probe_oracle',
  'history_probe',
  'behavior_half',
]);

/** @internal shared with the module experiments' logs (`inspect-module-log.ts`). */
export function inspectModelName(system: SystemSpec): string {
  if (system.kind === 'openrouter') return `openrouter/${system.model}`;
  if (system.kind === 'openai-compatible') return `openai-api/chi/${system.model}`;
  return system.model;
}

/** @internal shared with the module experiments' logs (`inspect-module-log.ts`). */
export function inspectStopReason(result: ChatResult): string {
  if (result.truncated || result.finishReason === 'length') return 'max_tokens';
  if (result.finishReason === 'content_filter') return 'content_filter';
  return result.finishReason === 'stop' ? 'stop' : 'unknown';
}

/** @internal shared with the module experiments' logs (`inspect-module-log.ts`). */
export function inspectMessage(message: ChatMessage): Json {
  return { role: message.role, content: message.content, source: 'input' };
}

/** @internal shared with the module experiments' logs (`inspect-module-log.ts`). */
export function usageOf(results: readonly ChatResult[]): { [key: string]: Json } {
  let input = 0;
  let output = 0;
  let total = 0;
  let reasoning = 0;
  let cost = 0;
  for (const result of results) {
    input += result.usage.promptTokens ?? 0;
    output += result.usage.completionTokens ?? 0;
    total +=
      result.usage.totalTokens ??
      (result.usage.promptTokens ?? 0) + (result.usage.completionTokens ?? 0);
    reasoning += result.usage.reasoningTokens ?? 0;
    cost += result.chargedUsd;
  }
  return {
    input_tokens: input,
    output_tokens: output,
    total_tokens: total,
    reasoning_tokens: reasoning,
    total_cost: cost,
  };
}

/** The verdict of every question a scored request asked, from the release traces. */
function verdictsByRequest(
  records: RunRecords,
  scores: RunScores,
): Map<string, readonly ItemVerdict[]> {
  const memory = new Map<string, ItemVerdict>();
  for (const line of scores.memoryTraces) {
    const { trace } = line;
    memory.set(
      `${line.systemId}|${line.worldSeed}|${line.load}|${line.condition}|${trace.probeId}`,
      {
        id: trace.probeId,
        expected: { id: trace.probeId, value: trace.expectedValue, source: trace.expectedSource },
        verdict: trace.verdict,
        reason: trace.reason,
      },
    );
  }
  const history = new Map<string, ItemVerdict[]>();
  for (const line of scores.historyTraces) {
    const { trace } = line;
    const key = `${line.systemId}|${line.worldSeed}|${trace.history}|${trace.checkpoint}`;
    const list = history.get(key) ?? [];
    list.push({
      id: `${trace.history}.c${trace.checkpoint}.e${trace.environmentIndex}`,
      expected: trace.expected,
      verdict: trace.verdict,
      reason: trace.reason,
    });
    history.set(key, list);
  }
  const behavior = new Map<string, ItemVerdict[]>();
  for (const line of scores.behaviorTraces) {
    const { trace } = line;
    const key = `${line.systemId}|${line.worldSeed}|${trace.half}`;
    const list = behavior.get(key) ?? [];
    list.push({
      id: trace.itemId,
      expected: trace.expected,
      verdict: trace.verdict,
      reason: trace.reason,
    });
    behavior.set(key, list);
  }
  const out = new Map<string, readonly ItemVerdict[]>();
  for (const request of records.plan.requests) {
    if (!SCORED_TASKS.has(request.task)) continue;
    const rendered = records.requests.get(request.requestId);
    if (request.task === 'memory_probe' || request.task === 'memory_probe_oracle') {
      const text = rendered?.messages.map((message) => message.content).join('\n') ?? '';
      const ids = jsonBlockIds(text, 'QUESTIONS') ?? [];
      out.set(
        request.requestId,
        ids.flatMap((id) => {
          const verdict = memory.get(
            `${request.systemId}|${request.worldSeed}|${request.load}|${request.condition}|${id}`,
          );
          return verdict === undefined ? [] : [verdict];
        }),
      );
    } else if (request.task === 'history_probe') {
      out.set(
        request.requestId,
        history.get(
          `${request.systemId}|${request.worldSeed}|${request.history}|${request.checkpoint}`,
        ) ?? [],
      );
    } else {
      out.set(
        request.requestId,
        behavior.get(`${request.systemId}|${request.worldSeed}|${request.half}`) ?? [],
      );
    }
  }
  return out;
}

function explanation(verdicts: readonly ItemVerdict[]): string {
  const passed = verdicts.filter((item) => item.verdict === 'pass').length;
  const reasons = new Map<string, number>();
  for (const item of verdicts) reasons.set(item.reason, (reasons.get(item.reason) ?? 0) + 1);
  const counts = [...reasons.entries()]
    .sort(([a], [b]) => compareUtf8(a, b))
    .map(([reason, count]) => `${reason} ${count}`)
    .join(', ');
  return `${passed} of ${verdicts.length} questions correct (${counts || 'no questions scored'})`;
}

function sampleOf(
  request: PlannedRequest,
  records: RunRecords,
  system: SystemSpec,
  result: ChatResult,
  verdicts: readonly ItemVerdict[],
  blockComplete: boolean,
): Json {
  const rendered = records.requests.get(request.requestId);
  const input = (rendered?.messages ?? []).map(inspectMessage);
  const text = result.text ?? '';
  const passed = verdicts.filter((item) => item.verdict === 'pass').length;
  const usage = usageOf([result]);
  const model = inspectModelName(system);
  const assistant = { role: 'assistant', content: text, source: 'generate', model };
  return {
    id: request.requestId,
    epoch: 1,
    input,
    target: JSON.stringify(verdicts.map((item) => item.expected)),
    messages: [...input, assistant],
    output: {
      model,
      choices: [{ message: assistant, stop_reason: inspectStopReason(result) }],
      completion: text,
      usage,
      time: result.latencyMs / 1000,
      error: result.failure === 'none' ? null : `${result.failure}: ${result.failureDetail ?? ''}`,
    },
    scores: {
      [SCORER]: {
        value: verdicts.length === 0 ? 0 : passed / verdicts.length,
        answer: result.text,
        explanation: explanation(verdicts),
        metadata: {
          items: verdicts.map((item) => ({
            id: item.id,
            verdict: item.verdict,
            reason: item.reason,
          })),
        },
        history: [],
      },
    },
    metadata: {
      worldSeed: request.worldSeed,
      blockId: request.blockId,
      blockComplete,
      task: request.task,
      step: request.step,
      load: request.load,
      condition: request.condition,
      history: request.history,
      checkpoint: request.checkpoint,
      half: request.half,
      failure: result.failure,
    },
    store: {},
    events: [],
    model_usage: { [model]: usage },
    role_usage: {},
    attachments: {},
    started_at: result.startedAt,
    completed_at: result.finishedAt,
    total_time: result.latencyMs / 1000,
    working_time: result.latencyMs / 1000,
  };
}

/** @internal shared with the module experiments' logs (`inspect-module-log.ts`). */
export function evalId(manifestSha256: string, systemId: string, experiment: string): string {
  return createHash('sha256')
    .update(`${manifestSha256}|${systemId}|${experiment}`)
    .digest('hex')
    .slice(0, 22);
}

/** How the samples of one log are scored: the scorer's name and description and its metrics. */
export interface LogScoring {
  readonly scorer: string;
  /** One sentence: what the score of a sample is. */
  readonly description: string;
  /** Inspect metrics by name (`{ name, value, params }`). */
  readonly metrics: { readonly [name: string]: Json };
  /** The log's `task_args` beyond protocol and world seeds. */
  readonly taskArgs: { readonly [key: string]: Json };
  /** How a request saw the earlier ones (the plan step's `transcript` parameter). */
  readonly transcript: string;
}

/** The scoring of the pilot's own logs: the fraction of a request's questions answered correctly. */
function itemAccuracyScoring(
  manifest: RunManifest,
  system: SystemSpec,
  samples: readonly { value: number }[],
): LogScoring {
  const mean =
    samples.length === 0
      ? 0
      : samples.reduce((sum, entry) => sum + entry.value, 0) / samples.length;
  return {
    scorer: SCORER,
    description: `${SCORER}: the fraction of a request's questions answered correctly, by the release's scoring traces`,
    metrics: { accuracy: { name: 'accuracy', value: mean, params: {} } },
    taskArgs: {
      loads: manifest.experiments.memory?.loads ?? [],
      notebookCapBytes: system.uncappedNotebook === true ? null : manifest.notebookCapBytes,
    },
    transcript: 'never replayed: each request sees only the notes',
  };
}

/** An Inspect `EvalLog` of one system's samples of one experiment. */
export function logOf(
  records: RunRecords,
  system: SystemSpec,
  experiment: string,
  samples: readonly { sample: Json; result: ChatResult }[],
  scoring: LogScoring,
): InspectEvalLog {
  const manifest: RunManifest = records.manifest;
  const runId = records.status?.runId ?? records.manifestSha256.slice(0, 16);
  const model = inspectModelName(system);
  const usage = usageOf(samples.map((entry) => entry.result));
  const started =
    samples.map((entry) => entry.result.startedAt).sort(compareUtf8)[0] ?? manifest.createdAt;
  const completed =
    samples
      .map((entry) => entry.result.finishedAt)
      .sort(compareUtf8)
      .at(-1) ?? manifest.createdAt;
  const generateConfig: { [key: string]: Json } = {
    max_tokens: system.maxOutputTokens,
    max_retries: manifest.retry.maxRetries,
    timeout: Math.round(manifest.deadlineMs / 1000),
    ...(system.reasoningEffort === null ? {} : { reasoning_effort: system.reasoningEffort }),
  };
  const task = `chi_${experiment}`;
  return {
    version: 2,
    status: 'success',
    eval: {
      eval_id: evalId(records.manifestSha256, system.id, experiment),
      run_id: runId,
      created: manifest.createdAt,
      task,
      task_id: evalId(records.manifestSha256, 'task', experiment),
      task_version: 1,
      task_attribs: {},
      task_args: {
        protocol: manifest.protocol,
        worldSeeds: manifest.worldSeeds,
        ...scoring.taskArgs,
      },
      task_args_passed: {},
      dataset: {
        name: `chi-${experiment}`,
        location: RUN_FILE_NAME.plan,
        samples: samples.length,
        sample_ids: samples.map((entry) => (entry.sample as { id: string }).id),
        shuffled: false,
      },
      model,
      model_generate_config: generateConfig,
      model_base_url: system.baseUrl,
      model_args: {},
      config: { epochs: 1, log_samples: true, cost_limit: manifest.ceilingUsd },
      packages: { '@chi/report': REPORT_VERSION },
      metadata: {
        chi: {
          runId,
          manifestSha256: records.manifestSha256,
          systemId: system.id,
          evidenceClass: system.evidenceClass,
          label:
            system.evidenceClass === 'live_model'
              ? 'live model measurement'
              : 'scripted baseline — not a measurement of any model',
          uncappedNotebook: system.uncappedNotebook === true,
          experiment,
          scorer: scoring.description,
        },
      },
    },
    plan: {
      name: 'chi-notebook-protocol',
      steps: [
        {
          solver: 'chi_protocol_request',
          params: { experiment, transcript: scoring.transcript },
          params_passed: {},
        },
      ],
      config: generateConfig,
    },
    results: {
      total_samples: samples.length,
      completed_samples: samples.length,
      scores: [
        {
          name: scoring.scorer,
          scorer: scoring.scorer,
          params: {},
          metrics: scoring.metrics,
          scored_samples: samples.length,
          unscored_samples: 0,
        },
      ],
    },
    stats: {
      started_at: started,
      completed_at: completed,
      model_usage: { [model]: usage },
      role_usage: {},
      connection_limit_history: [],
    },
    invalidated: false,
    tags: ['chi', experiment, system.evidenceClass],
    metadata: {},
    samples: samples.map((entry) => entry.sample),
  };
}

/** Inspect's log file naming: `<created>_<task>-<system>_<eval_id>.json`. */
export function logFileName(records: RunRecords, system: SystemSpec, log: InspectEvalLog): string {
  const stamp = records.manifest.createdAt
    .replace(/\.\d+Z$/, '+00-00')
    .replace(/Z$/, '+00-00')
    .replace(/:/g, '-');
  const header = log.eval as { eval_id: string; task: string };
  return `${stamp}_${header.task}-${system.id}_${header.eval_id}.json`;
}

/**
 * The run as Inspect evaluation logs: one log per system and experiment (memory, controls,
 * history, behavior), one sample per scored request that received a result (its input
 * messages, output, target = the expected answers, and a score = the fraction of its questions
 * answered correctly, with every question's verdict), and a header with the model, generation
 * config, usage and timings. Keyed by file name (`<created>_<task>_<eval_id>.json`, Inspect's
 * naming), sorted. Pure: same run folder, same logs. The module experiments of the run that have
 * a scorer in `scorers` (default `BUILT_IN_SCORERS`) get one log per system too, one sample per
 * scored world ({@link moduleInspectLogs}).
 */
export function inspectLogs(
  records: RunRecords,
  scores: RunScores = scoreRun(records),
  scorers: readonly AnyExperimentScorer[] = BUILT_IN_SCORERS,
): Map<string, InspectEvalLog> {
  const outcomes: Map<string, RequestOutcome> = outcomesFromAttemptLog(records.attempts);
  const verdicts = verdictsByRequest(records, scores);
  const complete = new Map(
    scores.blocks.map((block) => [block.blockId, block.status === 'complete']),
  );
  const groups = new Map<
    string,
    {
      system: SystemSpec;
      experiment: ExperimentKind;
      samples: { sample: Json; result: ChatResult; value: number }[];
    }
  >();
  for (const system of records.manifest.systems) {
    for (const experiment of ['memory', 'controls', 'history', 'behavior'] as const)
      groups.set(`${system.id}|${experiment}`, { system, experiment, samples: [] });
  }
  for (const request of records.plan.requests) {
    if (!SCORED_TASKS.has(request.task)) continue;
    const outcome = outcomes.get(request.requestId);
    if (outcome?.kind !== 'resolved') continue;
    const group = groups.get(`${request.systemId}|${request.experiment}`);
    if (group === undefined) continue;
    const items = verdicts.get(request.requestId) ?? [];
    const sample = sampleOf(
      request,
      records,
      group.system,
      outcome.result,
      items,
      complete.get(request.blockId) ?? false,
    );
    const passed = items.filter((item) => item.verdict === 'pass').length;
    group.samples.push({
      sample,
      result: outcome.result,
      value: items.length === 0 ? 0 : passed / items.length,
    });
  }
  const logs = new Map<string, InspectEvalLog>();
  for (const group of groups.values()) {
    if (group.samples.length === 0) continue;
    const scoring = itemAccuracyScoring(records.manifest, group.system, group.samples);
    const log = logOf(records, group.system, group.experiment, group.samples, scoring);
    logs.set(logFileName(records, group.system, log), log);
  }
  for (const [name, log] of moduleInspectLogs(records, scores, scorers)) logs.set(name, log);
  return new Map([...logs.entries()].sort(([a], [b]) => compareUtf8(a, b)));
}
