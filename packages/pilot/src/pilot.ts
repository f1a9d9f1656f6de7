import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { AnyExperimentScorer } from '@chi/experiment';
import type { BuiltInExperiment } from '@chi/experiments';
import { createFileLedger, type FileLedger } from '@chi/openrouter';
import { type ReleaseStep, writeRelease } from '@chi/report';
import { packReleaseCode } from '@chi/report/internal';
import {
  acquireRunLock,
  foldAttemptLog,
  RUN_FILE_NAME,
  type RunLock,
  reconcileLedger,
  streamRunJsonl,
} from '@chi/run/internal';
import {
  type AttemptRecord,
  AttemptRecordSchema,
  type BudgetLedger,
  type ChatModel,
  type ChatResult,
  ChiError,
  type ModelCatalog,
  type RunManifest,
  type RunPlan,
  type SmokeResult,
} from '@chi/spec';
import { RunPlanSchema, RunStatusSchema } from '@chi/spec/internal';
import { chisEntriesFor, writeChisEntries } from './chis-entries';
import { EXIT_CODES } from './cli/exit-codes';
import { latestSmokeResults, runSmokeChecks } from './endpoints/smoke';
import { type LiveModelContext, modelsForManifest } from './endpoints/system-models';
import type { PilotEventSink } from './events';
import type { AnyExperiment } from './experiments/experiment';
import { PILOT_PACKAGE_DIR } from './package-dir';
import { withBuiltIns } from './pilot-built-ins';
import type { PilotSettings } from './pilot-settings';
import { readFrozenCatalog } from './run-folder/frozen-catalog';
import { readFrozenManifest } from './run-folder/manifest';
import { createRun } from './run-folder/run-create';
import { readJsonFile, runPaths, writeJsonFile } from './run-folder/run-folder';
import { readHistoryWorlds } from './run-folder/run-worlds';
import type { ExecuteOutcome, InstanceModelFactory } from './runner/execute-options';
import { checkResumedFolder, countResume } from './runner/resume-checks';
import { executeRun } from './runner/run-execute';
import { assertRunIntact } from './runner/run-open';
import { runCeilingUsd } from './shard/shard-manifest';
import type { ShardSpec } from './shard/shard-spec';

/** A required smoke check failed, so the scored run did not start. Exit code 4. */
export class SmokeCheckFailedError extends ChiError {
  readonly results: readonly SmokeResult[];

  constructor(results: readonly SmokeResult[]) {
    const failed = results.filter((result) => !result.passed);
    super(
      `smoke check failed for ${failed.map((result) => `${result.systemId} (${result.detail})`).join(', ')}; no scored request was sent (pass --allow-failed-smoke to start anyway)`,
    );
    this.name = 'SmokeCheckFailedError';
    this.results = results;
  }

  /** True for this error from any copy of the package. */
  static override isInstance(error: unknown): error is SmokeCheckFailedError {
    return ChiError.isInstance(error) && error.name === 'SmokeCheckFailedError';
  }
}

export { EXIT_CODES } from './cli/exit-codes';

/** Options of {@link runPilot}. Give `settings` for a new run or `resumeDir` to resume one. */
export interface RunPilotOptions {
  readonly settings?: PilotSettings;
  readonly resumeDir?: string;
  /** Folder of a new run; `<runsRoot>/<runId>` by default. */
  readonly runDir?: string;
  readonly runsRoot?: string;
  /** Models by system ID; built from the manifest when absent. */
  readonly models?: ReadonlyMap<string, ChatModel>;
  /**
   * API keys by environment variable name (usually `process.env`; never written anywhere). Each
   * system reads only the variable its manifest entry names (`apiKeyEnv`), in the first session
   * and on every resume.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Shorthand for `env: { OPENROUTER_API_KEY: apiKey }`: used only by systems naming that variable. */
  readonly apiKey?: string;
  /**
   * Catalog prices fetched before freezing a new live run (written to `catalog.json`, its hash
   * frozen in `manifest.catalogSha256`). A resume reads the folder's catalog, never this one.
   */
  readonly catalog?: ModelCatalog;
  /** Ceiling of the smoke checks (default 1 USD). */
  readonly smokeCeilingUsd?: number;
  /** Start even when a required smoke check failed. */
  readonly allowFailedSmoke?: boolean;
  readonly concurrency?: number;
  /** Write the release (scores, figures, report) after the run; default true. */
  readonly release?: boolean;
  readonly onEvent?: PilotEventSink;
  readonly signal?: AbortSignal;
  readonly now?: () => Date;
  /** Injectable fetch for live transports (tests). */
  readonly fetch?: typeof globalThis.fetch;
  /**
   * The experiment modules of the run (default: the pilot's registry, `REGISTERED_EXPERIMENTS`). Add
   * your own (ID `x-<name>`) to run it beside or instead of the pilot's (`settings.templates`);
   * give the same list again on resume.
   */
  readonly experiments?: readonly AnyExperiment[];
  /**
   * Scorers of the release (default: `@chi/report`'s `BUILT_IN_SCORERS`, which score the pilot's
   * experiments and the opt-in environments). An added experiment passes its scorer here, beside
   * them, so its scores reach the release; `verifyRelease` then needs the same list.
   */
  readonly scorers?: readonly AnyExperimentScorer[];
  /**
   * The built-in experiments' registry (default `BUILT_IN_EXPERIMENTS` of `@chi/experiments`, one
   * folder each). Given, it also sets the defaults of `experiments` (the pilot's three and its
   * modules) and `scorers` (the pilot's and its scorers), and the scripted systems answer its
   * tasks with its policies: a test adds a folder to the run with `[...BUILT_IN_EXPERIMENTS, mine]`.
   */
  readonly builtIns?: readonly BuiltInExperiment[];
  /**
   * Instance-scoped models (`executeRun`'s `modelFor`) made from the session's live context (keys,
   * ledger, catalog, fetch) instead of `models`: the divergence protocol's instances.
   */
  readonly instanceModels?: (
    manifest: RunManifest,
    context: LiveModelContext,
  ) => InstanceModelFactory;
  /**
   * Writes the derived files instead of the pilot's `finishRun` (the divergence protocol's
   * CHIS entries and release); resolves to the release folder or null.
   */
  readonly finish?: (runDir: string, execution: ExecuteOutcome) => Promise<string | null>;
  /**
   * Called with the session's models before the first request is sent (`resuming`: the folder
   * existed): a study continues the memory of the systems that keep their own here, importing
   * the state its previous session exported (docs/protocol.md, "Studies").
   */
  readonly prepareModels?: (
    models: ReadonlyMap<string, ChatModel>,
    manifest: RunManifest,
    resuming: boolean,
  ) => Promise<void>;
  /** A new run runs only this shard of its plan (`createRun`'s `shard`). */
  readonly shard?: ShardSpec;
  /** A new run's manifest `createdAt` (`createRun`'s `createdAt`; every shard gets the same). */
  readonly createdAt?: Date;
  /**
   * The clock of the models `runPilot` makes from the manifest (their timestamps and latencies;
   * `CHI_TEST_CLOCK` in tests that compare published bytes across processes). Default: real time.
   */
  readonly modelClock?: () => Date;
}

/** What {@link runPilot} did. */
export interface PilotOutcome {
  readonly runDir: string;
  readonly runId: string;
  readonly execution: ExecuteOutcome;
  /** The release folder, or null when it was not written. */
  readonly releaseDir: string | null;
  readonly smoke: readonly SmokeResult[];
  /** 0 when every block is complete; 3 when the run stopped early or left incomplete blocks. */
  readonly exitCode: number;
}

/** The keys a session's live systems read (`env`, or the `apiKey` shorthand). */
function keysOf(options: RunPilotOptions): Parameters<typeof checkResumedFolder>[2] {
  return {
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
  };
}

/** The systems with at least one record in the attempt log at `path` (streamed, not held). */
async function startedSystems(path: string): Promise<Set<string>> {
  const started = new Set<string>();
  for await (const record of streamRunJsonl(path, AttemptRecordSchema))
    started.add(record.systemId);
  return started;
}

/**
 * The final results of the requests `keep` accepts, collected record by record from a pass over
 * the attempt log that another reader streams (in `chi score`, `checkRequestRecords`' one pass):
 * only their records are held, and folded (`foldAttemptLog`) when {@link take} is called.
 */
export class FinalResultsCollector {
  #kept: AttemptRecord[] = [];
  readonly #keep: (requestId: string) => boolean;

  constructor(keep: (requestId: string) => boolean = () => true) {
    this.#keep = keep;
  }

  /** One record of the log, in file order. */
  readonly add = (record: AttemptRecord): void => {
    if (this.#keep(record.requestId)) this.#kept.push(record);
  };

  /** The final result of every kept request that has one; the records held are let go. */
  take(): Map<string, ChatResult> {
    const states = foldAttemptLog(this.#kept);
    this.#kept = [];
    const results = new Map<string, ChatResult>();
    for (const [requestId, state] of states)
      if (state.result !== null) results.set(requestId, state.result);
    return results;
  }
}

/**
 * The final result of every request in a run folder's attempt log, or of the requests `keep`
 * accepts: the log is streamed and only their records are folded (`foldAttemptLog`), so asking
 * for a few requests does not hold the whole log (its replies are most of a run's bytes).
 */
export async function finalResults(
  runDir: string,
  keep: (requestId: string) => boolean = () => true,
): Promise<Map<string, ChatResult>> {
  const collector = new FinalResultsCollector(keep);
  for await (const record of streamRunJsonl(runPaths(runDir).attempts, AttemptRecordSchema))
    collector.add(record);
  return collector.take();
}

/**
 * A collector of what the CHIS entries read from the attempt log (the results of the history
 * requests of the run's plan), for a caller that streams the log anyway before `finishRun`
 * (`chi score`): handed to `finishRun` as `historyResults`, the log is not streamed again for them.
 */
export async function historyResultsCollector(runDir: string): Promise<FinalResultsCollector> {
  const plan = await readJsonFile(runPaths(runDir).plan, RunPlanSchema);
  return new FinalResultsCollector(historyRequestIds(plan));
}

function releaseStepDetail(step: ReleaseStep): string {
  switch (step.step) {
    case 'read':
      return 'reading the run folder';
    case 'analyze':
      return `scoring every reply and computing the clustered-bootstrap intervals (${step.resamples} resamples)`;
    case 'write':
      return `writing ${step.files} release files (tables, figures, report)`;
    case 'checksums':
      return 'writing SHA256SUMS';
  }
}

/** Whether a request ID belongs to a history block of `plan` (what CHIS entries read). */
function historyRequestIds(plan: RunPlan): (requestId: string) => boolean {
  const history = new Set(
    plan.blocks.filter((block) => block.experiment === 'history').map((block) => block.blockId),
  );
  const ids = new Set(
    plan.requests.filter((request) => history.has(request.blockId)).map((r) => r.requestId),
  );
  return (requestId) => ids.has(requestId);
}

/**
 * Writes the CHIS entries of every complete history trajectory. Its own function so that the plan
 * and the entries it reads are garbage once it returns: `finishRun` then writes the release,
 * whose reader holds its own plan (held here across the release, they cost about 0.17 MB a world
 * of live heap, 8.4 MB at 60 worlds of the v0.1 run).
 */
async function writeRunChisEntries(
  runDir: string,
  collected: FinalResultsCollector | undefined,
): Promise<void> {
  const paths = runPaths(runDir);
  const { manifest } = await readFrozenManifest(runDir);
  const plan = await readJsonFile(paths.plan, RunPlanSchema);
  const entries = chisEntriesFor({
    manifest,
    plan,
    // only the history worlds: the memory worlds are the largest files of a run
    historyWorlds: await readHistoryWorlds(paths, manifest),
    // only the history requests: a CHIS sequence reads no other reply
    results: collected?.take() ?? (await finalResults(runDir, historyRequestIds(plan))),
  });
  await writeChisEntries(paths, manifest, entries);
}

/**
 * Writes the derived parts of a run folder: the CHIS entries of every complete history
 * trajectory, then (unless `release` is false) the release with scores, traces, figures and
 * report, via `@chi/report` (one scoring path for the run and for `chi verify`), carrying the
 * packed `@chi/*` packages of this installation and the self-contained verifier.
 */
export async function finishRun(
  runDir: string,
  options: {
    release?: boolean;
    onEvent?: PilotEventSink;
    scorers?: readonly AnyExperimentScorer[];
    /**
     * The history results, collected by the caller from a pass over the attempt log it made
     * while holding the run's lock (`chi score`: `historyResultsCollector`, fed by
     * `checkRequestRecords`); without it the log is streamed here for them.
     */
    historyResults?: FinalResultsCollector;
  } = {},
): Promise<string | null> {
  const paths = runPaths(runDir);
  // Nothing derived is written from a damaged folder, with or without a release.
  await assertRunIntact(runDir, await readFrozenManifest(runDir));
  const emit = options.onEvent ?? (() => {});
  emit({
    type: 'finishing',
    step: 'chis',
    detail: 'writing the CHIS entries',
  });
  await writeRunChisEntries(runDir, options.historyResults);
  if (options.release === false) return null;
  const summary = await writeRelease({
    runDir,
    outDir: paths.releaseDir,
    overwrite: true,
    onStep: (step) => emit({ type: 'finishing', step: step.step, detail: releaseStepDetail(step) }),
    code: packReleaseCode({ rootPackageDir: PILOT_PACKAGE_DIR }),
    ...(options.scorers === undefined ? {} : { scorers: options.scorers }),
  });
  options.onEvent?.({ type: 'release-written', releaseDir: summary.outDir });
  return summary.outDir;
}

/**
 * Creates the run folder of a new pilot and returns only its path: the created run (its plan of
 * every request, built in memory) is dropped when this returns, not held by `runPilot`'s frame
 * while the requests run (the session opens the plan from `plan.json`, packed).
 */
async function createdRunDir(options: RunPilotOptions, settings: PilotSettings): Promise<string> {
  const created = await createRun({
    settings,
    ...(options.runDir === undefined ? {} : { runDir: options.runDir }),
    ...(options.runsRoot === undefined ? {} : { runsRoot: options.runsRoot }),
    ...(options.catalog === undefined ? {} : { catalog: options.catalog }),
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.experiments === undefined ? {} : { experiments: options.experiments }),
    ...(options.builtIns === undefined ? {} : { builtIns: options.builtIns }),
    ...(options.shard === undefined ? {} : { shard: options.shard }),
    ...(options.createdAt === undefined ? {} : { createdAt: options.createdAt }),
  });
  return created.runDir;
}

/**
 * Runs the pilot end to end: creates (or resumes) the run folder with its frozen manifest, runs
 * the smoke checks a live manifest requires, sends every registered request with bounded
 * concurrency under the budget ledger, writes CHIS entries and the release, and returns the exit
 * code `chi pilot` uses.
 *
 * @example
 * ```ts
 * const outcome = await runPilot({ settings: defaultOfflineSettings() });
 * outcome.releaseDir; // chi-runs/<runId>/release
 * ```
 */
export async function runPilot(given: RunPilotOptions): Promise<PilotOutcome> {
  const options = withBuiltIns(given);
  const { runDir, lock } = await lockedRunDir(options);
  try {
    return await runLockedPilot(options, runDir);
  } finally {
    lock.release();
  }
}

/**
 * The run folder of a pilot, with its write lock held (`run.lock`, `@chi/run`): a resumed folder
 * is locked before anything is read; a new one right after its creation (before any request).
 */
async function lockedRunDir(options: RunPilotOptions): Promise<{ runDir: string; lock: RunLock }> {
  let runDir: string;
  if (options.resumeDir !== undefined) {
    runDir = resolve(options.resumeDir);
    if (!existsSync(runPaths(runDir).manifest)) {
      throw new ChiError(
        `cannot resume ${runDir}: it holds no ${RUN_FILE_NAME.manifest} (not a run folder, or its creation never finished)`,
      );
    }
  } else {
    if (options.settings === undefined)
      throw new ChiError('runPilot needs settings (a new run) or resumeDir');
    runDir = await createdRunDir(options, options.settings);
  }
  const command = options.resumeDir === undefined ? 'chi pilot' : 'chi pilot --resume';
  return { runDir, lock: acquireRunLock(runDir, { command }) };
}

// long-function: the session's steps in order (ledger, smoke checks, execution, finish), each a call
async function runLockedPilot(options: RunPilotOptions, runDir: string): Promise<PilotOutcome> {
  const paths = runPaths(runDir);
  const frozen = await readFrozenManifest(runDir);
  const { manifest } = frozen;
  const live = manifest.systems.filter((system) => system.kind !== 'scripted');
  const resuming = options.resumeDir !== undefined;
  if (resuming) {
    const ownModels = options.models !== undefined;
    await checkResumedFolder(paths, frozen, ownModels ? null : keysOf(options));
  }
  // The folder's catalog, checked against manifest.catalogSha256 (a resume never reads another).
  const catalog = await readFrozenCatalog(paths, manifest);

  if (resuming) await countResume(paths, (options.now ?? (() => new Date()))());

  let ledger: FileLedger | undefined;
  let smoke: SmokeResult[] = [];
  try {
    if (live.length > 0 && options.models === undefined) {
      // A ledger deleted or rolled back would hand the resumed run a budget it already spent.
      // The attempt log is streamed: a confirmatory run's log is too large to hold.
      if (options.resumeDir !== undefined)
        await reconcileLedger({
          ledgerPath: paths.ledger,
          records: streamRunJsonl(paths.attempts, AttemptRecordSchema),
          systems: manifest.systems,
        });
      ledger = await createFileLedger({
        path: paths.ledger,
        ceilingUsd: runCeilingUsd(manifest),
        repairTornTail: true,
      });
    }
    if (manifest.requireSmoke === true && live.length > 0) {
      const recorded = await latestSmokeResults(paths.smoke);
      // A system whose scored requests already started passed its smoke check (or the user
      // accepted its failure) in an earlier session: it is never checked, and paid, again.
      const started = await startedSystems(paths.attempts);
      const missing = live.filter(
        (system) => recorded.get(system.id)?.passed !== true && !started.has(system.id),
      );
      if (missing.length > 0) {
        smoke = await runSmokeChecks({
          systems: missing,
          ...(options.env === undefined ? {} : { env: options.env }),
          ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
          ceilingUsd: options.smokeCeilingUsd ?? 1,
          logPath: paths.smoke,
          ledgerPath: paths.smokeLedger,
          ...(catalog === undefined ? {} : { catalog }),
          ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
          ...(options.now === undefined ? {} : { now: options.now }),
        });
        if (smoke.some((result) => !result.passed) && options.allowFailedSmoke !== true) {
          const error = new SmokeCheckFailedError(smoke);
          const status = await readJsonFile(paths.status, RunStatusSchema);
          await writeJsonFile(
            paths.status,
            {
              ...status,
              state: 'stopped',
              updatedAt: (options.now ?? (() => new Date()))().toISOString(),
              stop: { kind: 'smoke', message: error.message },
              exitCode: EXIT_CODES.smokeFailed,
            },
            { durable: true },
          );
          throw error;
        }
      }
    }
    const context: LiveModelContext = {
      ...(options.env === undefined ? {} : { env: options.env }),
      ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
      ...(ledger === undefined ? {} : { ledger }),
      ...(catalog === undefined ? {} : { catalog }),
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      ...(options.modelClock === undefined ? {} : { now: options.modelClock }),
      ...(options.builtIns === undefined ? {} : { builtIns: options.builtIns }),
    };
    const models =
      options.instanceModels === undefined
        ? (options.models ?? modelsForManifest(manifest, context))
        : undefined;
    if (models !== undefined && options.prepareModels !== undefined)
      await options.prepareModels(models, manifest, resuming);
    const execution = await executeRun({
      runDir,
      ...(models === undefined
        ? {
            modelFor: (options.instanceModels as NonNullable<typeof options.instanceModels>)(
              manifest,
              context,
            ),
          }
        : { models }),
      ...(ledger === undefined ? {} : { ledger: ledger as BudgetLedger }),
      ...(catalog === undefined ? {} : { catalog }),
      ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
      ...(options.onEvent === undefined ? {} : { onEvent: options.onEvent }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.now === undefined ? {} : { now: options.now }),
      ...(options.experiments === undefined ? {} : { experiments: options.experiments }),
      ...(resuming ? { resumeCounted: true } : {}),
    });
    options.onEvent?.({
      type: 'scored',
      runDir,
      completeBlocks: execution.completeBlocks,
      incompleteBlocks: execution.incompleteBlocks,
    });
    const exitCode =
      execution.state === 'completed' && execution.incompleteBlocks === 0
        ? EXIT_CODES.ok
        : EXIT_CODES.stoppedOrIncomplete;
    const status = await readJsonFile(paths.status, RunStatusSchema);
    await writeJsonFile(paths.status, { ...status, exitCode }, { durable: true });
    const releaseDir =
      options.finish === undefined
        ? await finishRun(runDir, {
            ...(options.release === undefined ? {} : { release: options.release }),
            ...(options.onEvent === undefined ? {} : { onEvent: options.onEvent }),
            ...(options.scorers === undefined ? {} : { scorers: options.scorers }),
          })
        : await options.finish(runDir, execution);
    return { runDir, runId: execution.runId, execution, releaseDir, smoke, exitCode };
  } finally {
    await ledger?.close();
  }
}
