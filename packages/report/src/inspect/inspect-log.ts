import { createHash } from 'node:crypto';
import type { RunChartData } from '@chi/analysis';
import { analyzeModule, evidenceBanner, type RunScores } from '@chi/analysis';
import { compareUtf8 } from '@chi/analysis/internal';
import type { AnyExperimentScorer, WorldScorer } from '@chi/experiment';
import { outcomesFromAttemptLog, type RequestOutcome } from '@chi/run';
import { RUN_FILE_NAME } from '@chi/run/internal';
import type { EvidenceClass, RunManifest, SystemSpec } from '@chi/spec';
import { scoreModule } from '../experiment-scorers/module-scores';
import { BUILT_IN_SCORERS } from '../experiment-scorers/scorer-registry';
import { outcomeSourceOf } from '../experiment-scorers/scorer-request';
import { REPORT_VERSION } from '../report-version';
import type { RunRecords } from '../run-folder/run-folder';
import { analyzeRun } from '../scoring/analyze-run';
import { scoreRun } from '../scoring/score-run';
import {
  addItemAccuracy,
  type MetricList,
  moduleHeadline,
  pilotHeadline,
} from './headline-metrics';
import { type InspectUnit, inspectSample } from './inspect-sample';
import { modelUsage } from './inspect-usage';
import type { InspectEvalLog, Json, JsonObject } from './json';
import { moduleScorerName, moduleUnits } from './module-units';
import { pilotUnits } from './pilot-units';

/**
 * The Inspect (UK AISI) release whose evaluation-log model these logs follow: `EvalLog` of
 * inspect_ai at tag 0.3.260 (commit 3f294e61b823). Tests validate every exported log against
 * a conformance schema we wrote from that model,
 * `test/fixtures/inspect/eval-log-conformance.schema.json`.
 */
export const INSPECT_LOG_SCHEMA_RELEASE = 'inspect_ai 0.3.260';

/** The scorer of the pilot's own experiments: a request's item accuracy. */
const ITEM_SCORER = 'chi_item_accuracy';

/** How one log's samples are scored and summarised. */
interface LogScoring {
  readonly scorer: string;
  /** One sentence: what the score of a sample is and what the metrics are. */
  readonly description: string;
  readonly headline: MetricList;
  readonly taskArgs: JsonObject;
}

/** Inspect's model name of a system. */
/**
 * The label of a log's numbers by what served them: a live model only when the user declared
 * one; an endpoint nobody declared (`--base-url` without `--evidence-class live_model`) is an
 * unverified endpoint, never a live model nor a scripted baseline.
 */
export function inspectEvidenceLabel(evidenceClass: EvidenceClass): string {
  if (evidenceClass === 'live_model') return 'live model measurement';
  if (evidenceClass === 'scripted_baseline')
    return 'scripted baseline — not a measurement of any model';
  return evidenceBanner([evidenceClass]) as string;
}

function inspectModelName(system: SystemSpec): string {
  if (system.kind === 'openrouter') return `openrouter/${system.model}`;
  if (system.kind === 'openai-compatible') return `openai-api/chi/${system.model}`;
  return system.model;
}

/** A 22-hex-digit ID, the same for the same parts. */
function hashId(...parts: readonly string[]): string {
  return createHash('sha256').update(parts.join('|')).digest('hex').slice(0, 22);
}

function generateConfigOf(manifest: RunManifest, system: SystemSpec): JsonObject {
  return {
    max_tokens: system.maxOutputTokens,
    max_retries: manifest.retry.maxRetries,
    timeout: Math.round(manifest.deadlineMs / 1000),
    ...(system.reasoningEffort === null ? {} : { reasoning_effort: system.reasoningEffort }),
  };
}

function headerOf(
  records: RunRecords,
  system: SystemSpec,
  experiment: string,
  samples: readonly JsonObject[],
  scoring: LogScoring,
): JsonObject {
  const manifest = records.manifest;
  const runId = records.status?.runId ?? records.manifestSha256.slice(0, 16);
  return {
    eval_id: hashId(records.manifestSha256, system.id, experiment),
    run_id: runId,
    created: manifest.createdAt,
    task: `chi_${experiment}`,
    // one task per (run, experiment, system): Inspect's viewer keeps one log per task ID
    task_id: hashId(records.manifestSha256, 'task', experiment, system.id),
    task_version: 1,
    task_attribs: {},
    task_args: {
      protocol: manifest.protocol,
      worldSeeds: manifest.worldSeeds,
      ...scoring.taskArgs,
    },
    task_args_passed: {},
    tags: ['chi', experiment, system.evidenceClass],
    dataset: {
      name: `chi-${experiment}`,
      location: RUN_FILE_NAME.plan,
      samples: samples.length,
      sample_ids: samples.map((sample) => sample.id as string),
      shuffled: false,
    },
    model: inspectModelName(system),
    model_generate_config: generateConfigOf(manifest, system),
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
        label: inspectEvidenceLabel(system.evidenceClass),
        uncappedNotebook: system.uncappedNotebook === true,
        experiment,
        scorer: scoring.description,
        undefinedEstimands: [...scoring.headline.undefinedEstimands],
      },
    },
  };
}

/** An Inspect `EvalLog` of one system's units of one experiment. */
function logOf(
  records: RunRecords,
  system: SystemSpec,
  experiment: string,
  units: readonly InspectUnit[],
  scoring: LogScoring,
): InspectEvalLog {
  const manifest = records.manifest;
  const model = inspectModelName(system);
  const generateConfig = generateConfigOf(manifest, system);
  const context = { model, generateConfig, scorer: scoring.scorer };
  const samples = units.map((unit) => inspectSample(unit, context));
  const results = units.flatMap((unit) => unit.exchanges.map((exchange) => exchange.result));
  const times = results.flatMap((r) => [r.startedAt, r.finishedAt]).sort(compareUtf8);
  return {
    version: 2,
    status: 'success',
    eval: headerOf(records, system, experiment, samples, scoring),
    plan: {
      name: 'chi-notebook-protocol',
      steps: [
        {
          solver: 'chi_protocol_request',
          params: { experiment, transcript: 'never replayed: each request sees only its notes' },
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
          metrics: scoring.headline.metrics,
          scored_samples: samples.length,
          unscored_samples: 0,
        },
      ],
    },
    stats: {
      started_at: times[0] ?? manifest.createdAt,
      completed_at: times.at(-1) ?? manifest.createdAt,
      model_usage: modelUsage(model, results),
      role_usage: {},
      connection_limit_history: [],
    },
    invalidated: false,
    samples: samples as Json[],
  };
}

/** Inspect's log file naming: `<created>_<task>-<system>_<eval_id>.json`. */
function logFileName(records: RunRecords, system: SystemSpec, log: InspectEvalLog): string {
  const stamp = records.manifest.createdAt
    .replace(/\.\d+Z$/, '+00-00')
    .replace(/Z$/, '+00-00')
    .replace(/:/g, '-');
  const header = log.eval as { eval_id: string; task: string };
  return `${stamp}_${header.task}-${system.id}_${header.eval_id}.json`;
}

/** Every experiment's units and how each (experiment, system) log is scored: the one source. */
function experimentUnits(
  records: RunRecords,
  scores: RunScores,
  data: RunChartData,
  scorers: readonly AnyExperimentScorer[],
  outcomes: ReadonlyMap<string, RequestOutcome>,
): { units: InspectUnit[]; scoring: (experiment: string, system: SystemSpec) => LogScoring } {
  const units = pilotUnits(records, scores, outcomes);
  const modules = new Map<
    string,
    { scorer: WorldScorer; estimates: ReturnType<typeof analyzeModule> }
  >();
  for (const scorer of scorers) {
    const scored = scoreModule(records, scores.blocks, scorer, outcomeSourceOf(outcomes));
    if (scored === null) continue;
    modules.set(scorer.experimentId, {
      scorer: scored.scorer,
      estimates: analyzeModule(records.manifest, scored),
    });
    units.push(...moduleUnits(records, scored.observations, outcomes));
  }
  const scoring = (experiment: string, system: SystemSpec): LogScoring => {
    const module = modules.get(experiment);
    if (module !== undefined) {
      const name = moduleScorerName(module.scorer);
      return {
        scorer: name,
        description: `${name}: a sample is one world, its score the ${module.scorer.title} scorer's per-world values (${module.scorer.columns.join(', ')}); the metrics are the release's world means over complete blocks with their intervals`,
        headline: moduleHeadline(records.manifest, module.estimates, system.id),
        taskArgs: {},
      };
    }
    const headline = pilotHeadline(records.manifest, data, experiment, system.id);
    const values = units
      .filter((u) => u.experiment === experiment && u.systemId === system.id)
      .map((u) => u.score.value as number);
    addItemAccuracy(headline, values);
    return {
      scorer: ITEM_SCORER,
      description: `${ITEM_SCORER}: a sample is one request, its score the fraction of its questions answered correctly (by the release's scoring traces); the metrics are the release's estimands with their intervals, item accuracy secondary`,
      headline,
      taskArgs: {
        loads: records.manifest.experiments.memory?.loads ?? [],
        notebookCapBytes:
          system.uncappedNotebook === true ? null : records.manifest.notebookCapBytes,
      },
    };
  };
  return { units, scoring };
}

/**
 * The run as Inspect evaluation logs, one path for every experiment: one log per (experiment,
 * system) with its own task ID, one sample per unit the experiment scores (a request of the
 * pilot's memory, controls, history and behavior experiments; a world of a module experiment),
 * each with its transcript events, and the release's estimands as the log's metrics. Keyed by
 * file name, sorted. Pure: same run folder, same logs.
 */
export function inspectLogs(
  records: RunRecords,
  scores: RunScores = scoreRun(records),
  scorers: readonly AnyExperimentScorer[] = BUILT_IN_SCORERS,
  data: RunChartData = analyzeRun(records, scores),
): Map<string, InspectEvalLog> {
  const outcomes = outcomesFromAttemptLog(records.attempts);
  const { units, scoring } = experimentUnits(records, scores, data, scorers, outcomes);
  const groups = new Map<string, InspectUnit[]>();
  for (const unit of units) {
    const key = `${unit.experiment}\u0000${unit.systemId}`;
    const group = groups.get(key) ?? [];
    group.push(unit);
    groups.set(key, group);
  }
  const logs = new Map<string, InspectEvalLog>();
  for (const system of records.manifest.systems) {
    for (const [key, group] of groups) {
      if (!key.endsWith(`\u0000${system.id}`)) continue;
      const experiment = key.slice(0, key.indexOf('\u0000'));
      const log = logOf(records, system, experiment, group, scoring(experiment, system));
      logs.set(logFileName(records, system, log), log);
    }
  }
  return new Map([...logs.entries()].sort(([a], [b]) => compareUtf8(a, b)));
}
