import { existsSync } from 'node:fs';
import { checkRunIntegrity, type RunIntegrity } from '@chi/run';
import { indexPlan, RUN_FILE_NAME, throwIfRunDamaged } from '@chi/run/internal';
import {
  InvalidArgumentError,
  RunFolderDamagedError,
  type RunManifest,
  type RunPlan,
  type RunStatus,
} from '@chi/spec';
import { RunPlanSchema, RunStatusSchema } from '@chi/spec/internal';
import type { AnyExperiment } from '../experiments/experiment';
import { REGISTERED_EXPERIMENTS } from '../experiments/registry';
import { loadPromptTemplates, type PromptSet } from '../prompts';
import {
  type FrozenManifest,
  ManifestIntegrityError,
  planSha256,
  readFrozenManifest,
} from '../run-folder/manifest';
import { runIdFor } from '../run-folder/run-create';
import {
  parseJsonFileText,
  type RunPaths,
  readJsonFile,
  readRunFileText,
  runPaths,
} from '../run-folder/run-folder';
import { checkWorldFiles } from '../run-folder/run-worlds';
import { folderPlanSha256 } from '../shard/shard-manifest';
import type { AttemptChainHead } from './attempt-chain-writer';
import type { ExecuteRunOptions } from './execute-options';
import type { OpenedRun } from './opened-run';

/** The keys of `manifest.experiments` that are not a registered experiment's own ID. */
const MANIFEST_SLOTS = new Set(['memory', 'history', 'behavior', 'divergence', 'added']);

/**
 * The experiments of a run's registry, checked against the manifest: every added experiment the
 * manifest names (`experiments.added`) must have its module, and so must every registered
 * experiment it keys by ID (`experiments[<id>]`, a built-in of `@chi/experiments`), whose
 * parameters must pass the module's own schema.
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
  const keyed = manifest.experiments as Readonly<Record<string, unknown>>;
  for (const id of Object.keys(keyed).filter((key) => !MANIFEST_SLOTS.has(key))) {
    const experiment = experiments.find((candidate) => candidate.id === id);
    if (experiment === undefined)
      throw new InvalidArgumentError(
        'experiments',
        `the run includes the registered experiment ${id}, which this registry does not have; pass its module in experiments`,
      );
    const checked = experiment.parameters.safeParse(keyed[id]);
    if (!checked.success)
      throw new InvalidArgumentError(
        `manifest.experiments.${id}`,
        `does not pass the ${id} module's parameter schema: ${checked.error.issues.map((issue) => issue.message).join('; ')}`,
      );
  }
  return experiments;
}

/** The integrity checks of a run folder before any request is sent (plan and prompt hashes). */
function checkPlanAndPrompts(
  runDir: string,
  paths: RunPaths,
  manifest: RunManifest,
  plan: RunPlan,
  prompts: PromptSet,
): void {
  const frozenPlanSha256 = folderPlanSha256(manifest);
  if (frozenPlanSha256 !== undefined && planSha256(plan) !== frozenPlanSha256) {
    throw new ManifestIntegrityError(
      `${RUN_FILE_NAME.plan} in ${runDir} does not match the planSha256 frozen in the manifest`,
    );
  }
  // Every frozen template is checked byte for byte by the shared check (checkRunIntegrity);
  // here only that the loaded set, which renders, holds the frozen versions.
  for (const ref of manifest.prompts) {
    const template = prompts.get(ref.name);
    if (template === undefined || template.version !== ref.version)
      throw new RunFolderDamagedError(
        paths.prompt(ref.name, ref.version),
        `prompt ${ref.name}@${ref.version} of manifest.prompts is missing`,
      );
  }
}

/**
 * Exactly one of `models` and `modelFor`; every system of the manifest has a model of `models`,
 * of the evidence class it is registered with (instance models are checked as they are made).
 */
function checkModels(manifest: RunManifest, options: ExecuteRunOptions): void {
  const models = options.models;
  if ((models === undefined) === (options.modelFor === undefined))
    throw new InvalidArgumentError('models', 'pass exactly one of models and modelFor');
  if (models === undefined) return;
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
      `it records manifest hash ${previousStatus.manifestSha256}, but ${RUN_FILE_NAME.manifest} hashes to ${manifestSha256}: the manifest was changed after the run started`,
    );
  return previousStatus;
}

/**
 * The check resume, score and verify share (`checkRunIntegrity` of `@chi/run`): the attempt chain
 * and both its anchors, the ledger, the prompt templates. With `status` undefined, `status.json`
 * is read (and checked against the manifest) here.
 *
 * @throws `RunFolderDamagedError` (`@chi/spec`) naming the first damaged file
 */
export async function assertRunIntact(
  runDir: string,
  frozen: FrozenManifest,
  status?: RunStatus | null,
  ledger: 'required' | 'if-present' = 'required',
): Promise<RunIntegrity> {
  const integrity = await checkRunIntegrity({
    root: runDir,
    manifestSha256: frozen.sha256,
    manifest: frozen.manifest,
    status:
      status === undefined ? await readPreviousStatus(runPaths(runDir), frozen.sha256) : status,
    ledger,
  });
  throwIfRunDamaged(runDir, integrity.problems, '. Nothing was sent or written');
  return integrity;
}

/**
 * Opens a run folder for execution: reads and checks the frozen manifest, the plan, the prompt
 * templates, the experiment modules, the models and the previous session's status and
 * attempt-chain head, and reads and validates every world file (they are read again seed by seed
 * when a request renders, `run-held-state.ts`). Sends nothing and writes nothing.
 */
export async function openRunForExecution(options: ExecuteRunOptions): Promise<OpenedRun> {
  const paths = runPaths(options.runDir);
  const frozen = await readFrozenManifest(options.runDir);
  const manifest = frozen.manifest;
  const planBytes = Buffer.from(await readRunFileText(paths.plan), 'utf8');
  const parsedPlan: RunPlan = parseJsonFileText(
    paths.plan,
    planBytes.toString('utf8'),
    RunPlanSchema,
  );
  const previousStatus = await readPreviousStatus(paths, frozen.sha256);
  // The ledger was reconciled before it was opened (`pilot.ts`): here it is checked when present.
  const integrity = await assertRunIntact(options.runDir, frozen, previousStatus, 'if-present');
  const prompts: PromptSet = loadPromptTemplates(paths.promptsDir);
  checkPlanAndPrompts(options.runDir, paths, manifest, parsedPlan, prompts);
  // Held for the whole session: the file's bytes and packed columns, not the parsed plan.
  const plan = indexPlan(planBytes, parsedPlan, paths.plan);
  await checkWorldFiles(paths, manifest);
  const experiments = runExperiments(manifest, options.experiments ?? REGISTERED_EXPERIMENTS);
  const systems = new Map(manifest.systems.map((system) => [system.id, system]));
  checkModels(manifest, options);
  const chainStart: AttemptChainHead = {
    records: integrity.chain.records,
    headSha256: integrity.chain.headSha256,
    chained: integrity.chain.chained,
  };
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
    experiments,
    systems,
    previousStatus,
    chainStart,
    runId,
    concurrency,
  };
}
