import { createHash } from 'node:crypto';
import type { ChatMessage, ChatResult } from '@chi/spec';
import { inspectUsage, modelUsage } from './inspect-usage';
import type { Json, JsonObject } from './json';

/** One request of a sample and the result it got: one model call in Inspect's transcript. */
export interface InspectExchange {
  readonly requestId: string;
  /** The messages the request sent (from the run's frozen requests). */
  readonly input: readonly ChatMessage[];
  readonly result: ChatResult;
}

/** What an experiment scores as one Inspect sample: its model calls, target, score and metadata. */
export interface InspectUnit {
  /** The sample ID, unique within its log. */
  readonly id: string;
  readonly systemId: string;
  /** The experiment ID: one log per (run, experiment, system). */
  readonly experiment: string;
  /** At least one exchange, in plan order. */
  readonly exchanges: readonly InspectExchange[];
  readonly target: string;
  readonly score: InspectScore;
  readonly metadata: JsonObject;
}

/** An Inspect `Score` (without its edit history). */
export interface InspectScore {
  readonly value: Json;
  readonly answer: string | null;
  readonly explanation: string;
  readonly metadata: JsonObject;
}

/** What every sample of a log shares: the model name, generation config and scorer name. */
export interface SampleContext {
  readonly model: string;
  readonly generateConfig: JsonObject;
  readonly scorer: string;
}

/** Inspect's stop reason of a result. */
export function inspectStopReason(result: ChatResult): string {
  if (result.truncated || result.finishReason === 'length') return 'max_tokens';
  if (result.finishReason === 'content_filter') return 'content_filter';
  return result.finishReason === 'stop' ? 'stop' : 'unknown';
}

/** An input message as Inspect holds it. */
export function inspectMessage(message: ChatMessage): Json {
  return { role: message.role, content: message.content, source: 'input' };
}

/** A deterministic event UUID: the same run gives the same log bytes. */
function eventUuid(sampleId: string, index: number): string {
  return createHash('sha256').update(`${sampleId}|event|${index}`).digest('hex').slice(0, 22);
}

function assistantOf(result: ChatResult, model: string): JsonObject {
  return { role: 'assistant', content: result.text ?? '', source: 'generate', model };
}

/** Inspect's `ModelOutput` of one or more results (the last one's choice, all their usage). */
function modelOutput(model: string, results: readonly ChatResult[]): JsonObject {
  const last = results.at(-1) as ChatResult;
  const usage = inspectUsage(results);
  return {
    model,
    choices: [{ message: assistantOf(last, model), stop_reason: inspectStopReason(last) }],
    completion: last.text ?? '',
    ...(usage === null ? {} : { usage }),
    time: last.latencyMs / 1000,
    ...(last.failure === 'none' ? {} : { error: `${last.failure}: ${last.failureDetail ?? ''}` }),
  };
}

/** Seconds from `from` to `to` (ISO times), never negative. */
function secondsBetween(from: string, to: string): number {
  return Math.max(0, (Date.parse(to) - Date.parse(from)) / 1000);
}

/**
 * The sample's transcript as Inspect events: `sample_init`, one `model` event per exchange
 * (its input, output, usage and timings) and one `score` event.
 */
function sampleEvents(unit: InspectUnit, context: SampleContext, input: readonly Json[]): Json[] {
  const first = unit.exchanges[0] as InspectExchange;
  const start = first.result.startedAt;
  const events: Json[] = [
    {
      event: 'sample_init',
      uuid: eventUuid(unit.id, 0),
      timestamp: start,
      working_start: 0,
      sample: { input: [...input], target: unit.target, id: unit.id },
      state: { messages: [...input] },
    },
  ];
  unit.exchanges.forEach(({ input: messages, result }, index) => {
    events.push({
      event: 'model',
      uuid: eventUuid(unit.id, index + 1),
      timestamp: result.startedAt,
      working_start: secondsBetween(start, result.startedAt),
      model: context.model,
      input: messages.map(inspectMessage),
      tools: [],
      tool_choice: 'none',
      config: context.generateConfig,
      output: modelOutput(context.model, [result]),
      retries: Math.max(0, result.tries.length - 1),
      ...(result.failure === 'none'
        ? {}
        : { error: `${result.failure}: ${result.failureDetail ?? ''}` }),
      completed: result.finishedAt,
      working_time: result.latencyMs / 1000,
    });
  });
  const last = (unit.exchanges.at(-1) as InspectExchange).result;
  events.push({
    event: 'score',
    uuid: eventUuid(unit.id, unit.exchanges.length + 1),
    timestamp: last.finishedAt,
    working_start: secondsBetween(start, last.finishedAt),
    score: scoreJson(unit.score),
    target: unit.target,
    intermediate: false,
    scorer: context.scorer,
  });
  return events;
}

function scoreJson(score: InspectScore): JsonObject {
  return {
    value: score.value,
    answer: score.answer,
    explanation: score.explanation,
    metadata: score.metadata,
    history: [],
  };
}

/**
 * One Inspect `EvalSample` of a unit: the input of its first request, every request's messages
 * followed by its reply (a new conversation starts at each request), the last reply as output,
 * the unit's score under the log's scorer, and the transcript events.
 */
export function inspectSample(unit: InspectUnit, context: SampleContext): JsonObject {
  const first = unit.exchanges[0] as InspectExchange;
  const last = (unit.exchanges.at(-1) as InspectExchange).result;
  const results = unit.exchanges.map((exchange) => exchange.result);
  const input = first.input.map(inspectMessage);
  const messages: Json[] = unit.exchanges.flatMap((exchange) => [
    ...exchange.input.map(inspectMessage),
    assistantOf(exchange.result, context.model),
  ]);
  const seconds = results.reduce((sum, result) => sum + result.latencyMs, 0) / 1000;
  return {
    id: unit.id,
    epoch: 1,
    input,
    target: unit.target,
    messages,
    output: modelOutput(context.model, results),
    scores: { [context.scorer]: scoreJson(unit.score) },
    metadata: unit.metadata,
    store: {},
    events: sampleEvents(unit, context, input),
    model_usage: modelUsage(context.model, results),
    role_usage: {},
    attachments: {},
    started_at: first.result.startedAt,
    completed_at: last.finishedAt,
    total_time: seconds,
    working_time: seconds,
  };
}
