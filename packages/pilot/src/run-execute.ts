import { existsSync } from 'node:fs';
import { createJsonlWriter, type JsonlWriter } from '@chi/chis';
import { requestInputBytes } from '@chi/openrouter';
import { failpoint } from '@chi/report';
import {
  canonicalJson,
  computeBlockStatuses,
  failureCategory,
  foldAttemptLog,
  isAccountFailure,
  isInfrastructureFailure,
  type RequestOutcome,
  readAttemptLog,
  readRunJsonl,
  sha256Hex,
} from '@chi/run';
import {
  AttemptRecordSchema,
  type BudgetLedger,
  type ChatModel,
  type ChatResult,
  ChatResultSchema,
  type FailureLogEntry,
  FailureLogEntrySchema,
  InvalidArgumentError,
  type NotebookSnapshot,
  type PlannedRequest,
  parseWith,
  type RenderedRequest,
  RunFolderDamagedError,
  type RunManifest,
  type RunPlan,
  RunPlanSchema,
  type RunStatus,
  RunStatusSchema,
  type SystemSpec,
} from '@chi/spec';
import {
  type ChainedAttemptWriter,
  chainAttemptWriter,
  readAttemptChainHead,
} from './attempt-chain-writer';
import type { PilotEventSink, PilotProgress } from './events';
import type { AnyExperiment } from './experiments/experiment';
import { PILOT_EXPERIMENTS } from './experiments/registry';
import { ManifestIntegrityError, planSha256, readFrozenManifest } from './manifest';
import { applyNotebookCap, type NotebookContent } from './notebook';
import { loadPromptTemplates, type PromptSet } from './prompts';
import { notebookKey, renderPlannedRequest } from './render-planned';
import { openRequestStore } from './request-store';
import { runIdFor } from './run-create';
import { openRunLog, type RunPaths, readJsonFile, runPaths, writeJsonFile } from './run-folder';
import { readRunWorlds } from './run-worlds';

/** Options of {@link executeRun}. */
export interface ExecuteRunOptions {
  /** A run folder made by `createRun` (fresh, or interrupted: it is resumed). */
  readonly runDir: string;
  /** The model of every system of the manifest, by system ID. */
  readonly models: ReadonlyMap<string, ChatModel>;
  /** The budget ledger the models reserve with, to report spend and notice a stop. */
  readonly ledger?: BudgetLedger;
  /** Requests in flight at once; the manifest's concurrency by default. */
  readonly concurrency?: number;
  readonly onEvent?: PilotEventSink;
  /** Aborting stops new requests; requests in flight run to their result (never cancelled). */
  readonly signal?: AbortSignal;
  readonly now?: () => Date;
  /**
   * The experiment modules that render the plan's requests (default: the pilot's registry). A
   * run with experiments added from outside the pilot needs them again on every resume.
   */
  readonly experiments?: readonly AnyExperiment[];
}

/**
 * The experiments of a run's registry, checked against the manifest: every added experiment the
 * manifest names (`experiments.added`) must have its module.
 */
function runExperiments(
  manifest: RunManifest,
  experiments: readonly AnyExperiment[],
): readonly AnyExperiment[] {
  for (const id of Object.keys(manifest.experiments.added ?? {})) {
    if (!experiments.some((experiment) => experiment.id === id))
      throw new InvalidArgumentError(
        'experiments',
        `the run includes the added experiment ${id}; pass its module in experiments (it is not part of the pilot's registry)`,
      );
  }
  return experiments;
}

/** How an execution ended. */
export interface ExecuteOutcome {
  readonly runDir: string;
  readonly runId: string;
  readonly state: 'completed' | 'stopped' | 'failed';
  readonly stop: { readonly kind: string; readonly message: string } | null;
  readonly progress: PilotProgress;
  readonly elapsedMs: number;
  readonly completeBlocks: number;
  readonly incompleteBlocks: number;
}

/** Whether a possibly-sent attempt of this system may be sent again on resume. */
export function mayResendUncertain(system: SystemSpec): boolean {
  // Free and deterministic: re-sending costs nothing and yields the same reply.
  return system.evidenceClass === 'scripted_baseline';
}

function retryWaits(result: ChatResult): number[] {
  return result.tries.flatMap((attempt) => (attempt.waitMs === null ? [] : [attempt.waitMs]));
}

/** The integrity checks of a run folder before any request is sent (plan and prompt hashes). */
function checkPlanAndPrompts(
  runDir: string,
  paths: RunPaths,
  manifest: RunManifest,
  plan: RunPlan,
  prompts: PromptSet,
): void {
  if (manifest.planSha256 !== undefined && planSha256(plan) !== manifest.planSha256) {
    throw new ManifestIntegrityError(
      `plan.json in ${runDir} does not match the planSha256 frozen in the manifest`,
    );
  }
  for (const ref of manifest.prompts) {
    const template = prompts.get(ref.name);
    if (
      template === undefined ||
      template.version !== ref.version ||
      template.sha256 !== ref.sha256
    ) {
      throw new ManifestIntegrityError(
        `prompt ${ref.name}@${ref.version} in ${paths.promptsDir} does not match the manifest hash`,
      );
    }
  }
}

/** Every system of the manifest has a model, of the evidence class it is registered with. */
function checkModels(manifest: RunManifest, models: ReadonlyMap<string, ChatModel>): void {
  for (const system of manifest.systems) {
    const model = models.get(system.id);
    if (model === undefined)
      throw new InvalidArgumentError('models', `no model for system ${system.id} of the manifest`);
    if (model.evidenceClass !== system.evidenceClass) {
      throw new InvalidArgumentError(
        'models',
        `system ${system.id} is registered as ${system.evidenceClass} but its model reports ${model.evidenceClass}`,
      );
    }
  }
}

/** The status a previous session left, checked against the manifest; null for a fresh run. */
async function readPreviousStatus(
  paths: RunPaths,
  manifestSha256: string,
): Promise<RunStatus | null> {
  const previousStatus = existsSync(paths.status)
    ? await readJsonFile(paths.status, RunStatusSchema)
    : null;
  if (previousStatus !== null && previousStatus.manifestSha256 !== manifestSha256)
    throw new RunFolderDamagedError(
      paths.status,
      `it records manifest hash ${previousStatus.manifestSha256}, but manifest.json hashes to ${manifestSha256}: the manifest was changed after the run started`,
    );
  return previousStatus;
}

/**
 * Opens a run folder for execution: reads and checks the frozen manifest, the plan, the prompt
 * templates, the worlds, the experiment modules, the models and the previous session's status
 * and attempt-chain head. Sends nothing and writes nothing.
 */
async function openRunForExecution(options: ExecuteRunOptions) {
  const paths = runPaths(options.runDir);
  const frozen = await readFrozenManifest(options.runDir);
  const manifest = frozen.manifest;
  const plan: RunPlan = await readJsonFile(paths.plan, RunPlanSchema);
  const prompts: PromptSet = loadPromptTemplates(paths.promptsDir);
  checkPlanAndPrompts(options.runDir, paths, manifest, plan, prompts);
  const worlds = await readRunWorlds(paths, manifest);
  const experiments = runExperiments(manifest, options.experiments ?? PILOT_EXPERIMENTS);
  const systems = new Map(manifest.systems.map((system) => [system.id, system]));
  checkModels(manifest, options.models);
  const previousStatus = await readPreviousStatus(paths, frozen.sha256);
  // Every record of this manifest, the chain unbroken, nothing removed since status.json saw it.
  const chainStart = await readAttemptChainHead(
    paths.attempts,
    frozen.sha256,
    previousStatus?.attemptLog ?? null,
  );
  const runId = previousStatus?.runId ?? runIdFor(manifest, frozen.sha256);
  const concurrency = options.concurrency ?? manifest.concurrency;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new InvalidArgumentError(
      'concurrency',
      `expected a positive integer, found ${String(concurrency)}`,
    );
  }
  return {
    paths,
    frozen,
    manifest,
    plan,
    prompts,
    worlds,
    experiments,
    systems,
    previousStatus,
    chainStart,
    runId,
    concurrency,
  };
}

/**
 * Sends every registered request of a run that the attempt log does not already resolve, with
 * bounded concurrency, in plan order (so whole blocks, then whole worlds, finish first), and
 * records everything in the run folder: rendered requests, the attempt log (before sending and
 * after the result), notebooks, failures, block statuses and the run status.
 *
 * Resume rule: a request with `before_send` but no `after_response` was possibly sent. For a paid
 * system it is never sent again: an `abandoned` record is appended and its block is incomplete.
 * For a `scripted_baseline` system (free, deterministic) it is sent again as a new attempt.
 *
 * @example
 * ```ts
 * const run = await createRun({ settings: defaultOfflineSettings() });
 * const models = scriptedModelsFor(run.frozen.manifest);
 * const outcome = await executeRun({ runDir: run.runDir, models });
 * outcome.state; // 'completed'
 * ```
 */
export async function executeRun(options: ExecuteRunOptions): Promise<ExecuteOutcome> {
  const started = Date.now();
  const now = options.now ?? (() => new Date());
  const emit: PilotEventSink = options.onEvent ?? (() => {});
  const opened = await openRunForExecution(options);
  const { paths, frozen, manifest, plan, prompts, worlds, experiments, systems } = opened;
  const { previousStatus, chainStart, runId, concurrency } = opened;

  const logStates = foldAttemptLog(await readAttemptLog(paths.attempts));
  const attemptWriter: ChainedAttemptWriter = chainAttemptWriter(
    await openRunLog(paths.attempts, () =>
      createJsonlWriter({ path: paths.attempts, schema: AttemptRecordSchema, fsync: 'every-line' }),
    ),
    chainStart,
  );
  const failureWriter: JsonlWriter<FailureLogEntry> = await openRunLog(paths.failures, () =>
    createJsonlWriter({ path: paths.failures, schema: FailureLogEntrySchema, fsync: 'every-line' }),
  );
  const requestStore = await openRequestStore(options.runDir);

  const outcomes = new Map<string, RequestOutcome>();
  const attemptsSoFar = new Map<string, number>();
  const notebooks = new Map<string, NotebookContent>();
  const capOf = (systemId: string) =>
    systems.get(systemId)?.uncappedNotebook === true ? null : manifest.notebookCapBytes;
  for (const experiment of experiments) {
    if (experiment.parametersOf(manifest) === null) continue;
    for (const key of experiment.startingNotebooks?.(manifest) ?? [])
      for (const system of manifest.systems)
        notebooks.set(`${system.id}|${key}`, applyNotebookCap('', capOf(system.id)));
  }

  const noteFor = (request: PlannedRequest, result: ChatResult): NotebookContent =>
    applyNotebookCap(result.text ?? '', capOf(request.systemId));

  const writeNotebook = async (request: PlannedRequest, content: NotebookContent) => {
    const path =
      request.experiment === 'history'
        ? paths.historyNotebook(
            request.systemId,
            request.worldSeed,
            request.history ?? 'A',
            request.checkpoint ?? 0,
          )
        : paths.memoryNotebook(request.systemId, request.worldSeed, request.load ?? 0);
    const snapshot: NotebookSnapshot = {
      kind: 'notebook',
      systemId: request.systemId,
      blockId: request.blockId,
      requestId: request.requestId,
      text: content.text,
      bytes: content.bytes,
      originalBytes: content.originalBytes,
      truncated: content.truncated,
      sha256: content.sha256,
      capBytes: content.capBytes,
    };
    await writeJsonFile(path, snapshot);
  };

  let resumedResolved = 0;
  let abandonedNow = 0;
  let resent = 0;
  for (const request of plan.requests) {
    const state = logStates.get(request.requestId);
    attemptsSoFar.set(request.requestId, state?.attempts ?? 0);
    if (state === undefined) continue;
    if (state.result !== null) {
      outcomes.set(request.requestId, { kind: 'resolved', result: state.result });
      resumedResolved += 1;
      if (request.writesNotebook && !isInfrastructureFailure(state.result)) {
        const content = noteFor(request, state.result);
        notebooks.set(`${request.systemId}|${notebookKey(request, experiments)}`, content);
        await writeNotebook(request, content);
      }
      continue;
    }
    const system = systems.get(request.systemId) as SystemSpec;
    if (state.openAttemptId !== null) {
      await attemptWriter.append({
        kind: 'attempt',
        manifestSha256: frozen.sha256,
        attemptId: state.openAttemptId,
        requestId: request.requestId,
        systemId: request.systemId,
        blockId: request.blockId,
        phase: 'abandoned',
        at: now().toISOString(),
        requestSha256: state.openRequestSha256 ?? sha256Hex(''),
        inputBytes: state.openInputBytes,
        result: null,
        reason: mayResendUncertain(system)
          ? 'possibly sent before an interruption; re-sent because the system is scripted (free and deterministic)'
          : 'possibly sent before an interruption; never re-sent (paid system), reservation retained',
      });
      await failureWriter.append({
        kind: 'failure',
        at: now().toISOString(),
        requestId: request.requestId,
        attemptId: state.openAttemptId,
        systemId: request.systemId,
        blockId: request.blockId,
        category: 'abandoned',
        failure: null,
        detail: mayResendUncertain(system)
          ? 'attempt outcome unknown after an interruption; scripted system: sent again'
          : 'attempt outcome unknown after an interruption; not sent again; block incomplete',
        retryWaitsMs: [],
      });
      emit({ type: 'request-abandoned', requestId: request.requestId, systemId: request.systemId });
    }
    if (mayResendUncertain(system)) {
      resent += 1;
    } else {
      outcomes.set(request.requestId, {
        kind: 'abandoned',
        reason: 'possibly sent before an interruption; never re-sent (paid system)',
      });
      abandonedNow += 1;
    }
  }
  // Counted as soon as the session starts, so a resume that is itself killed still counts.
  const resumes = (previousStatus?.resumes ?? 0) + (logStates.size > 0 ? 1 : 0);
  if (previousStatus !== null && logStates.size > 0) {
    await writeJsonFile(
      paths.status,
      { ...previousStatus, state: 'running', resumes, updatedAt: now().toISOString() },
      { durable: true },
    );
  }
  if (logStates.size > 0) {
    emit({
      type: 'run-resumed',
      runDir: options.runDir,
      runId,
      resolved: resumedResolved,
      abandoned: abandonedNow,
      resent,
    });
  } else {
    emit({
      type: 'run-created',
      runDir: options.runDir,
      runId,
      manifestSha256: frozen.sha256,
      totalRequests: plan.requests.length,
    });
  }

  let committedUsd = 0;
  let chargedUsd = 0;
  for (const outcome of outcomes.values()) {
    if (outcome.kind === 'resolved') chargedUsd += outcome.result.chargedUsd;
  }
  const progress = async (): Promise<PilotProgress> => {
    if (options.ledger !== undefined) committedUsd = (await options.ledger.state()).committedUsd;
    else committedUsd = chargedUsd;
    let done = 0;
    let failures = 0;
    let notSent = 0;
    for (const outcome of outcomes.values()) {
      if (outcome.kind === 'resolved') {
        done += 1;
        if (outcome.result.failure !== 'none') failures += 1;
      } else if (outcome.kind !== 'pending') notSent += 1;
    }
    return {
      total: plan.requests.length,
      done,
      failures,
      notSent,
      committedUsd,
      ceilingUsd: manifest.ceilingUsd,
    };
  };

  let stop: { kind: string; message: string } | null = null;
  let fatal: unknown = null;
  const abortListener = () => {
    stop ??= {
      kind: 'interrupted',
      message: 'stopped on request (signal); requests in flight ran to their result',
    };
  };
  options.signal?.addEventListener('abort', abortListener);
  if (options.signal?.aborted === true) abortListener();
  if (options.ledger !== undefined) {
    const ledgerState = await options.ledger.state();
    if (ledgerState.stopped !== null)
      stop = { kind: ledgerState.stopped.kind, message: ledgerState.stopped.message };
  }

  const notesLookup = (systemId: string, key: string): string => {
    const content = notebooks.get(`${systemId}|${key}`);
    if (content === undefined)
      throw new InvalidArgumentError(
        'notebook',
        `no notebook ${key} for ${systemId}: its writer has not resolved`,
      );
    return content.text;
  };

  const runOne = async (request: PlannedRequest): Promise<void> => {
    const system = systems.get(request.systemId) as SystemSpec;
    const model = options.models.get(request.systemId) as ChatModel;
    const rendered = renderPlannedRequest({
      request,
      manifest,
      worlds,
      prompts,
      notes: notesLookup,
      experiments,
    });
    const requestSha256 = sha256Hex(canonicalJson(rendered.messages));
    const inputBytes = requestInputBytes(rendered.messages);
    const record: RenderedRequest = {
      kind: 'rendered-request',
      requestId: request.requestId,
      systemId: request.systemId,
      blockId: request.blockId,
      task: rendered.task,
      template: rendered.template,
      messages: [...rendered.messages],
      maxOutputTokens: system.maxOutputTokens,
      requestSha256,
      inputBytes,
    };
    await requestStore.write(record);
    const attemptNumber = (attemptsSoFar.get(request.requestId) ?? 0) + 1;
    attemptsSoFar.set(request.requestId, attemptNumber);
    const attemptId = `${request.requestId}#${attemptNumber}`;
    const base = {
      kind: 'attempt' as const,
      manifestSha256: frozen.sha256,
      attemptId,
      requestId: request.requestId,
      systemId: request.systemId,
      blockId: request.blockId,
      requestSha256,
      inputBytes,
    };
    await attemptWriter.append({
      ...base,
      phase: 'before_send',
      at: now().toISOString(),
      result: null,
    });
    await failpoint('pilot:in-flight');
    // The stop signal is deliberately not passed on: a request in flight runs to its own result
    // (or deadline), so an interruption is never recorded as the model's timeout.
    const raw = await model.generate({
      requestId: request.requestId,
      messages: rendered.messages,
      maxOutputTokens: system.maxOutputTokens,
    });
    const result = parseWith(
      ChatResultSchema,
      raw,
      `result of ${request.requestId} from ${model.modelId}`,
    );
    await attemptWriter.append({
      ...base,
      phase: 'after_response',
      at: now().toISOString(),
      result,
    });
    chargedUsd += result.chargedUsd;
    if (result.failure !== 'none') {
      await failureWriter.append({
        kind: 'failure',
        at: now().toISOString(),
        requestId: request.requestId,
        attemptId,
        systemId: request.systemId,
        blockId: request.blockId,
        category: failureCategory(result) === 'infrastructure' ? 'infrastructure' : 'model',
        failure: result.failure,
        detail: result.failureDetail ?? result.failure,
        retryWaitsMs: retryWaits(result),
      });
    }
    if (request.writesNotebook && !isInfrastructureFailure(result)) {
      const content = noteFor(request, result);
      notebooks.set(`${request.systemId}|${notebookKey(request, experiments)}`, content);
      await writeNotebook(request, content);
    }
    // Resolved only now: a request that reads this one's notebook may be dispatched from here on.
    outcomes.set(request.requestId, { kind: 'resolved', result });
    if (isAccountFailure(result)) {
      // A rejected key or exhausted credits: no later request can succeed, and credits are
      // never topped up automatically.
      stop ??= {
        kind: 'account',
        message: result.failureDetail ?? `HTTP ${result.tries[result.tries.length - 1]?.status}`,
      };
    }
    if (result.failure === 'budget_refused') {
      stop ??= {
        kind: 'ceiling',
        message: result.failureDetail ?? 'the budget ledger refused a reservation',
      };
    }
    if (options.ledger !== undefined) {
      const ledgerState = await options.ledger.state();
      if (ledgerState.stopped !== null)
        stop ??= { kind: ledgerState.stopped.kind, message: ledgerState.stopped.message };
    }
    emit({
      type: 'request-finished',
      requestId: request.requestId,
      systemId: request.systemId,
      failure: result.failure,
      chargedUsd: result.chargedUsd,
      progress: await progress(),
    });
  };

  // Dependencies: a request is ready once every request it needs resolved without an
  // infrastructure failure; it is blocked for good when one of them cannot produce a notebook.
  const readiness = (request: PlannedRequest): 'ready' | 'wait' | { blockedBy: string } => {
    for (const dependency of request.dependsOn) {
      const outcome = outcomes.get(dependency);
      if (outcome === undefined || outcome.kind === 'pending') return 'wait';
      if (outcome.kind === 'resolved') {
        if (isInfrastructureFailure(outcome.result)) return { blockedBy: dependency };
        continue;
      }
      return { blockedBy: dependency };
    }
    return 'ready';
  };

  let pending = plan.requests.filter((request) => !outcomes.has(request.requestId));
  const running = new Set<string>();
  let stopAnnounced = false;
  await new Promise<void>((finish) => {
    const pump = (): void => {
      if (stop !== null && !stopAnnounced) {
        stopAnnounced = true;
        emit({ type: 'budget-stop', kind: stop.kind, message: stop.message });
      }
      if (stop === null && fatal === null) {
        const still: PlannedRequest[] = [];
        for (const request of pending) {
          if (running.has(request.requestId)) continue;
          const ready = readiness(request);
          if (ready === 'wait' || running.size >= concurrency || stop !== null) {
            still.push(request);
            continue;
          }
          if (ready !== 'ready') {
            outcomes.set(request.requestId, { kind: 'blocked', by: ready.blockedBy });
            continue;
          }
          running.add(request.requestId);
          runOne(request)
            .catch((error: unknown) => {
              fatal ??= error;
            })
            .finally(() => {
              running.delete(request.requestId);
              pump();
            });
        }
        pending = still;
      }
      if (running.size === 0) finish();
    };
    pump();
  });
  options.signal?.removeEventListener('abort', abortListener);

  const blockedNow = plan.requests.filter(
    (request) => outcomes.get(request.requestId)?.kind === 'blocked',
  );
  const loggedDependency = await loggedDependencyFailures(paths.failures);
  for (const request of blockedNow) {
    if (loggedDependency.has(request.requestId)) continue;
    const outcome = outcomes.get(request.requestId) as Extract<RequestOutcome, { kind: 'blocked' }>;
    await failureWriter.append({
      kind: 'failure',
      at: now().toISOString(),
      requestId: request.requestId,
      attemptId: null,
      systemId: request.systemId,
      blockId: request.blockId,
      category: 'dependency',
      failure: null,
      detail: `not sent: ${outcome.by} produced no notebook`,
      retryWaitsMs: [],
    });
  }
  const stopReason: { kind: string; message: string } | null =
    fatal !== null ? { kind: 'error', message: (fatal as Error).message ?? String(fatal) } : stop;
  for (const request of plan.requests) {
    if (!outcomes.has(request.requestId)) {
      outcomes.set(request.requestId, {
        kind: 'not_sent',
        reason: stopReason === null ? 'run unfinished' : `${stopReason.kind} stop`,
      });
    }
  }
  await attemptWriter.close();
  await failureWriter.close();
  await requestStore.close();

  const blocks = computeBlockStatuses(plan, outcomes);
  await writeJsonFile(paths.blocks, blocks);
  const finalProgress = await progress();
  const state: ExecuteOutcome['state'] =
    fatal !== null ? 'failed' : stop !== null ? 'stopped' : 'completed';
  const elapsedMs = Date.now() - started;
  const count = (kind: RequestOutcome['kind']) =>
    [...outcomes.values()].filter((outcome) => outcome.kind === kind).length;
  const completeBlocks = blocks.filter((block) => block.status === 'complete').length;
  const status: RunStatus = {
    kind: 'run-status',
    runId,
    manifestSha256: frozen.sha256,
    state,
    startedAt: previousStatus?.startedAt ?? manifest.createdAt,
    updatedAt: now().toISOString(),
    finishedAt: now().toISOString(),
    resumes,
    requests: {
      total: plan.requests.length,
      resolved: finalProgress.done,
      failed: finalProgress.failures,
      abandoned: count('abandoned'),
      notSent: count('blocked') + count('not_sent') + count('pending'),
    },
    spend: {
      ceilingUsd: manifest.ceilingUsd,
      committedUsd: finalProgress.committedUsd,
      chargedUsd,
    },
    stop: stopReason,
    blocks: {
      complete: completeBlocks,
      incomplete: blocks.filter((block) => block.status === 'incomplete').length,
      notStarted: blocks.filter((block) => block.status === 'not_started').length,
    },
    elapsedMs: (previousStatus?.elapsedMs ?? 0) + elapsedMs,
    exitCode: null,
    attemptLog: attemptWriter.head(),
  };
  await writeJsonFile(paths.status, status, { durable: true });
  emit({ type: 'run-finished', state, progress: finalProgress, elapsedMs });
  if (fatal !== null) throw fatal;
  return {
    runDir: options.runDir,
    runId,
    state,
    stop: stopReason,
    progress: finalProgress,
    elapsedMs,
    completeBlocks,
    incompleteBlocks: blocks.length - completeBlocks,
  };
}

/** Request IDs whose dependency failure is already in `failures.jsonl` (not logged twice on resume). */
async function loggedDependencyFailures(path: string): Promise<Set<string>> {
  // A line corrupt before the last is a damaged run folder, named (exit 5).
  const { records } = await openRunLog(path, () => readRunJsonl(path, FailureLogEntrySchema));
  return new Set(
    records.flatMap((entry) => (entry.category === 'dependency' ? [entry.requestId] : [])),
  );
}
