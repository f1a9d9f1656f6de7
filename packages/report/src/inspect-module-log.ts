import {
  type AnyExperimentScorer,
  outcomesFromAttemptLog,
  type RequestOutcome,
  usableReply,
} from '@chi/run';
import type { ChatResult, PlannedRequest, SystemSpec } from '@chi/spec';
import { analyzeModule } from './experiment-scorers/module-analysis';
import { type ModuleObservation, scoreModule } from './experiment-scorers/module-scores';
import {
  type InspectEvalLog,
  inspectMessage,
  inspectModelName,
  inspectStopReason,
  type Json,
  type LogScoring,
  logFileName,
  logOf,
  usageOf,
} from './inspect-log';
import { groupRequestOrdinals, requestsAt } from './plan-view';
import type { RunRecords } from './run-folder';
import type { RunScores } from './score-run';

/** One request of a world sample: its plan entry and, when it was answered, its result. */
interface WorldRequest {
  readonly request: PlannedRequest;
  readonly result: ChatResult | null;
  readonly reason: string | null;
}

/** The key of a world sample's requests in {@link worldRequests}' grouping. */
function worldKey(experiment: string, systemId: string, worldSeed: number): string {
  return `${experiment}|${systemId}|${worldSeed}`;
}

/**
 * The requests of one observation's world sample, in plan order: `byWorld` is the plan's
 * ordinals grouped by {@link worldKey} (one pass over the plan, not one per observation).
 */
function worldRequests(
  records: RunRecords,
  outcomes: ReadonlyMap<string, RequestOutcome>,
  byWorld: ReadonlyMap<string, readonly number[]>,
  observation: ModuleObservation,
): WorldRequest[] {
  const { experiment, systemId, worldSeed } = observation;
  return requestsAt(records.plan, byWorld.get(worldKey(experiment, systemId, worldSeed))).map(
    (request) => {
      const outcome = outcomes.get(request.requestId);
      const reply = usableReply(outcome ?? { kind: 'not_sent', reason: 'no attempt recorded' });
      return {
        request,
        result: outcome?.kind === 'resolved' ? outcome.result : null,
        reason: reply.kind === 'reply' ? null : reply.reason,
      };
    },
  );
}

function valuesText(values: Readonly<Record<string, number | null>>): string {
  return Object.entries(values)
    .map(([column, value]) => `${column} ${value === null ? 'undefined' : value}`)
    .join(', ');
}

/**
 * One sample per system and world of a module experiment (the unit its scorer scores): the
 * messages of every request of the world in plan order, each conversation's input followed by
 * its reply (a new conversation starts at each request; `metadata.requests` marks them), the
 * last reply as output, and the scorer's per-world values as the score.
 */
function worldSample(
  records: RunRecords,
  system: SystemSpec,
  scorerName: string,
  observation: ModuleObservation,
  requests: readonly WorldRequest[],
): { sample: Json; result: ChatResult } | null {
  const answered = requests.filter(
    (r): r is WorldRequest & { result: ChatResult } => r.result !== null,
  );
  const last = answered.at(-1);
  if (last === undefined) return null;
  const model = inspectModelName(system);
  const messages: Json[] = [];
  for (const { request, result } of answered) {
    const input = records.requests.get(request.requestId)?.messages ?? [];
    messages.push(...input.map(inspectMessage), {
      role: 'assistant',
      content: result.text ?? '',
      source: 'generate',
      model,
    });
  }
  const usage = usageOf(answered.map((r) => r.result));
  const assistant = {
    role: 'assistant',
    content: last.result.text ?? '',
    source: 'generate',
    model,
  };
  const seconds = answered.reduce((sum, r) => sum + r.result.latencyMs, 0) / 1000;
  const first = answered[0]?.request.requestId ?? '';
  return {
    result: last.result,
    sample: {
      id: `${system.id}.${observation.experiment}.w${observation.worldSeed}`,
      epoch: 1,
      input: (records.requests.get(first)?.messages ?? []).map(inspectMessage),
      // the truth is regenerated from the world seed by the scorer; there is no target text
      target: '',
      messages,
      output: {
        model,
        choices: [{ message: assistant, stop_reason: inspectStopReason(last.result) }],
        completion: last.result.text ?? '',
        usage,
        time: last.result.latencyMs / 1000,
        error: null,
      },
      scores: {
        [scorerName]: {
          value: { ...observation.values },
          answer: null,
          explanation: `world ${observation.worldSeed}: ${valuesText(observation.values)}${observation.blockComplete ? '' : ' (an incomplete block: left out of the means)'}`,
          metadata: {
            unusableRequests: observation.unusableRequests.map((u) => ({ ...u })),
          },
          history: [],
        },
      },
      metadata: {
        experiment: observation.experiment,
        worldSeed: observation.worldSeed,
        blockComplete: observation.blockComplete,
        requests: requests.map((r) => ({
          requestId: r.request.requestId,
          task: r.request.task,
          step: r.request.step,
          answered: r.result !== null,
          unusableReason: r.reason,
        })),
      },
      store: {},
      events: [],
      model_usage: { [model]: usage },
      role_usage: {},
      attachments: {},
      started_at: answered[0]?.result.startedAt ?? null,
      completed_at: last.result.finishedAt,
      total_time: seconds,
      working_time: seconds,
    },
  };
}

/** The Inspect scorer name of a module experiment: `chi_<experiment id in snake case>`. */
function scorerNameOf(scorer: AnyExperimentScorer): string {
  return `chi_${scorer.experimentId.replace(/-/g, '_')}`;
}

/** The scoring of a module log: the scorer's world means (the release's estimates) as metrics. */
function moduleScoring(
  scorer: AnyExperimentScorer,
  system: SystemSpec,
  estimates: ReturnType<typeof analyzeModule>,
): LogScoring {
  const name = scorerNameOf(scorer);
  const metrics: { [key: string]: Json } = {};
  for (const estimate of estimates) {
    if (estimate.systemId !== system.id || estimate.estimate === null) continue;
    metrics[estimate.column] = {
      name: estimate.column,
      value: estimate.estimate,
      params: {},
      metadata: {
        label: estimate.label,
        lower: estimate.lower,
        upper: estimate.upper,
        level: estimate.level,
        worlds: estimate.worlds,
      },
    };
  }
  return {
    scorer: name,
    description: `${name}: the per-world values of the ${scorer.title} scorer (${scorer.columns.join(', ')}); metrics are the release's world means over complete blocks`,
    metrics,
    taskArgs: {},
    transcript: 'never replayed: each request sees only its notes',
  };
}

/**
 * The module experiments of a run as Inspect evaluation logs: for every scorer whose experiment
 * the run includes, one log per system (`chi_<experiment>`), one sample per scored world with at
 * least one answered request. A sample holds the world's conversations in plan order and the
 * scorer's per-world values as its score (an Inspect map score); the log's metrics are the
 * release's world-mean estimates (`chart-data/<experiment>.csv`). Keyed by file name.
 */
export function moduleInspectLogs(
  records: RunRecords,
  scores: RunScores,
  scorers: readonly AnyExperimentScorer[],
): Map<string, InspectEvalLog> {
  const logs = new Map<string, InspectEvalLog>();
  const outcomes = outcomesFromAttemptLog(records.attempts);
  const byWorld = groupRequestOrdinals(records.plan, (r) =>
    worldKey(r.experiment, r.systemId, r.worldSeed),
  );
  for (const scorer of scorers) {
    const scored = scoreModule(records, scores.blocks, scorer, outcomes);
    if (scored === null) continue;
    const estimates = analyzeModule(records.manifest, scored);
    for (const system of records.manifest.systems) {
      const samples = scored.observations
        .filter((o) => o.systemId === system.id)
        .map((o) =>
          worldSample(
            records,
            system,
            scorerNameOf(scorer),
            o,
            worldRequests(records, outcomes, byWorld, o),
          ),
        )
        .filter((entry) => entry !== null);
      if (samples.length === 0) continue;
      const scoring = moduleScoring(scorer, system, estimates);
      const log = logOf(records, system, scorer.experimentId, samples, scoring);
      logs.set(logFileName(records, system, log), log);
    }
  }
  return logs;
}
