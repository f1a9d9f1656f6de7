import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { BuiltInExperiment } from '@chi/experiments';
import { applyNotebookCap } from '@chi/experiments/internal';
import { RUN_FILE_NAME } from '@chi/run/internal';
import {
  InvalidArgumentError,
  type ModelCatalog,
  type RunManifest,
  type RunPlan,
  type RunStatus,
} from '@chi/spec';
import { HISTORY_IDS, type NotebookSnapshot } from '@chi/spec/internal';
import { generatorInfo } from '@chi/worlds';
import { withDeclaredTemplates } from '../experiments/declared-templates';
import type { AnyExperiment } from '../experiments/experiment';
import { PILOT_EXPERIMENT_IDS, REGISTERED_EXPERIMENTS } from '../experiments/registry';
import { unusedPolicyTemplates } from '../memory-systems/policy-prompts';
import type { PilotSettings } from '../pilot-settings';
import { buildRunPlan } from '../plan/plan';
import { loadPromptTemplates, type PromptSet, promptRefs } from '../prompts';
import { validateSettings } from '../settings';
import { freezeShard, runCeilingUsd } from '../shard/shard-manifest';
import type { ShardSpec } from '../shard/shard-spec';
import { catalogSha256 } from './frozen-catalog';
import { calibrationFileText } from './human-data-file';
import { makeDirectory } from './make-directory';
import { buildManifest, type FrozenManifest, freezeManifest, planSha256 } from './manifest';
import { type RunPaths, runPaths, writeFileAtomic, writeJsonFile } from './run-folder';
import {
  generateRunWorlds,
  type RunWorlds,
  worldSeedsFor,
  writeGeneratedWorlds,
} from './run-worlds';

/** Where runs go by default: `./chi-runs/<runId>/` (git-ignored). */
export const DEFAULT_RUNS_ROOT = 'chi-runs';

/** A created run: its folder, ID, frozen manifest and plan. */
export interface RunHandle {
  readonly runDir: string;
  readonly runId: string;
  readonly frozen: FrozenManifest;
  readonly plan: RunPlan;
}

/** Options of {@link createRun}. */
export interface CreateRunOptions {
  readonly settings: PilotSettings;
  /** The run folder; default `<runsRoot>/<runId>`. Must not exist or be empty. */
  readonly runDir?: string;
  /** Parent of default run folders; default `./chi-runs`. */
  readonly runsRoot?: string;
  /** Catalog prices fetched before freezing (live runs); written to `catalog.json`. */
  readonly catalog?: ModelCatalog;
  /**
   * Prompt templates; the packaged ones by default (`smoke`, `system`). The templates the
   * experiment modules declare (`Experiment.promptTemplates`: every built-in's, in its folder of
   * `@chi/experiments`) are added to them; a name in both is a usage error.
   */
  readonly prompts?: PromptSet;
  readonly now?: () => Date;
  /** The experiments the run may include (default: the pilot's registry, `REGISTERED_EXPERIMENTS`). */
  readonly experiments?: readonly AnyExperiment[];
  /**
   * The built-in experiments' registry (default `BUILT_IN_EXPERIMENTS` of `@chi/experiments`): a
   * module of it keeps its parameters under its own ID in `manifest.experiments`.
   */
  readonly builtIns?: readonly BuiltInExperiment[];
  /**
   * Run only this shard's part of the plan (`chi pilot --shard i/n`), under its share of the
   * ceiling, both frozen in `manifest.shard` (docs/protocol.md, "Shards").
   */
  readonly shard?: ShardSpec;
  /**
   * The manifest's `createdAt` instead of `now()`: every shard of one run is given the same
   * (`chi pilot --shard i/n --created-at ISO`), so their manifests agree.
   */
  readonly createdAt?: Date;
}

/** `yyyymmddThhmmssZ-<8 hex of the manifest hash>`. */
export function runIdFor(manifest: RunManifest, sha256: string): string {
  const stamp = manifest.createdAt.replace(/\.\d+Z$/, 'Z').replace(/[-:]/g, '');
  return `${stamp}-${sha256.slice(0, 8)}`;
}

/** The IDs of the default run's modules, whose templates every run freezes (below). */
const DEFAULT_RUN_IDS: ReadonlySet<string> = new Set(PILOT_EXPERIMENT_IDS);

/**
 * The templates a module leaves out of a run with these parameters: its `unusedTemplates`, and
 * every template it declares itself when the run does not include it (null parameters). A module
 * of the default run (`PILOT_EXPERIMENTS`) keeps its declared templates even when left out: every
 * run froze them when they were the pilot's packaged files, so a run's manifest (and its ID) does
 * not depend on where a template's bytes live.
 */
function unusedTemplatesOf(experiment: AnyExperiment, manifest: RunManifest): readonly string[] {
  const params = experiment.parametersOf(manifest);
  const declared =
    params === null && !DEFAULT_RUN_IDS.has(experiment.id)
      ? (experiment.promptTemplates ?? []).map((template) => template.name)
      : [];
  return [...(experiment.unusedTemplates?.(params) ?? []), ...declared];
}

/** The run's modules and, after them, the registered modules it was not given (a run with an added experiment). */
function askedExperiments(experiments: readonly AnyExperiment[]): readonly AnyExperiment[] {
  const given = new Set(experiments.map((experiment) => experiment.id));
  return [
    ...experiments,
    ...REGISTERED_EXPERIMENTS.filter((experiment) => !given.has(experiment.id)),
  ];
}

/**
 * The prompt set without the templates of opt-in conditions and opt-in experiments the run leaves
 * off (an experiment's `unusedTemplates`, asked with its parameters in the draft manifest) and
 * without the declared templates of modules it leaves out: a run without the option freezes,
 * copies and hashes the same prompts as before the option existed. The registered modules are
 * asked too when the run was given its own list (a run with an added experiment), so an opt-in
 * environment's packaged templates stay out of a run that lacks it.
 */
function usedPrompts(
  prompts: PromptSet,
  manifest: RunManifest,
  experiments: readonly AnyExperiment[],
): PromptSet {
  const unused = new Set([
    ...askedExperiments(experiments).flatMap((experiment) =>
      unusedTemplatesOf(experiment, manifest),
    ),
    // the memory-policy-system wordings, only when a system keeps its own memory
    ...unusedPolicyTemplates(manifest),
  ]);
  return new Map([...prompts].filter(([name]) => !unused.has(name)));
}

/** What {@link createRun} derives before writing, worlds aside: manifest, plan and prompts. */
export interface PlannedRun {
  readonly frozen: FrozenManifest;
  readonly plan: RunPlan;
  readonly prompts: PromptSet;
  readonly runId: string;
}

/** A {@link PlannedRun} with every world of the run generated and held at once. */
export interface PreparedRun extends PlannedRun {
  readonly worlds: RunWorlds;
}

/**
 * Derives the manifest, plan and prompts of a run without generating a world or writing anything
 * (used by `chi pilot --plan` and by {@link createRun}, which then generates the worlds seed by
 * seed).
 */
export function planRun(options: Omit<CreateRunOptions, 'runDir' | 'runsRoot'>): PlannedRun {
  const settings = validateSettings(options.settings);
  const experiments = options.experiments ?? REGISTERED_EXPERIMENTS;
  // the packaged templates and those the modules declare (names checked: usage error), the
  // registered ones among them (the default run's templates are frozen by every run)
  const packaged = withDeclaredTemplates(
    options.prompts ?? loadPromptTemplates(),
    askedExperiments(experiments),
  );
  const now = options.now ?? (() => new Date());
  const unfiltered = buildManifest({
    settings,
    worldSeeds: worldSeedsFor(settings.rootSeed, settings.replicates),
    prompts: promptRefs(packaged),
    generators: [generatorInfo()],
    createdAt: options.createdAt ?? now(),
    ...(options.experiments === undefined ? {} : { experiments: options.experiments }),
    ...(options.builtIns === undefined ? {} : { builtIns: options.builtIns }),
  });
  const prompts = usedPrompts(packaged, unfiltered, experiments);
  const draft = { ...unfiltered, prompts: promptRefs(prompts) };
  const whole = buildRunPlan(draft, experiments);
  const unsharded = freezeManifest({
    ...draft,
    planSha256: planSha256(whole),
    // Every price a reservation reads is frozen before the first request (absent offline).
    ...(options.catalog === undefined ? {} : { catalogSha256: catalogSha256(options.catalog) }),
  });
  const { frozen, plan } =
    options.shard === undefined
      ? { frozen: unsharded, plan: whole }
      : freezeShard(unsharded, whole, options.shard);
  return { frozen, plan, prompts, runId: runIdFor(frozen.manifest, frozen.sha256) };
}

/**
 * `planRun` plus every world of the run, generated and held at once (for small runs and
 * tests; `createRun` and `chi pilot --plan` generate them a world seed at a time).
 */
export function prepareRun(options: Omit<CreateRunOptions, 'runDir' | 'runsRoot'>): PreparedRun {
  const planned = planRun(options);
  return { ...planned, worlds: generateRunWorlds(planned.frozen.manifest) };
}

/** Refuses a run folder that exists and is not empty (a usage error naming it). */
export async function assertEmptyOrMissing(dir: string): Promise<void> {
  try {
    const info = await stat(dir);
    if (!info.isDirectory() || (await readdir(dir)).length > 0) {
      throw new InvalidArgumentError(
        'runDir',
        `${dir} already exists and is not empty: choose another --out, or --resume it`,
      );
    }
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    // Absent, or under a file (makeDirectory then names it).
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
  }
}

/** The empty starting notebook of every history trajectory of every system (none without history). */
async function writeStartingHistoryNotebooks(
  paths: RunPaths,
  manifest: RunManifest,
): Promise<void> {
  for (const system of manifest.systems) {
    if (manifest.experiments.history === null) break;
    const capBytes = system.uncappedNotebook === true ? null : manifest.notebookCapBytes;
    for (const seed of manifest.worldSeeds) {
      for (const history of HISTORY_IDS) {
        const empty = applyNotebookCap('', capBytes);
        const snapshot: NotebookSnapshot = {
          kind: 'notebook',
          systemId: system.id,
          blockId: `history.w${seed}`,
          requestId: null,
          text: empty.text,
          bytes: empty.bytes,
          originalBytes: empty.originalBytes,
          truncated: empty.truncated,
          sha256: empty.sha256,
          capBytes: empty.capBytes,
        };
        await writeJsonFile(paths.historyNotebook(system.id, seed, history, 0), snapshot);
      }
    }
  }
}

/**
 * Creates a run folder: freezes the manifest (with its hash), copies the exact prompt templates,
 * writes every world with its answer key (generated, written and dropped a world seed at a time),
 * the plan, the empty starting notebooks of every history
 * trajectory and a `running` status. Nothing is sent. Returns the handle {@link executeRun} uses.
 */
export async function createRun(options: CreateRunOptions): Promise<RunHandle> {
  const prepared = planRun(options);
  const runDir = resolve(
    options.runDir ?? join(options.runsRoot ?? DEFAULT_RUNS_ROOT, prepared.runId),
  );
  await assertEmptyOrMissing(runDir);
  await makeDirectory(runDir);
  const paths = runPaths(runDir);
  const { frozen, plan } = prepared;

  await mkdir(paths.promptsDir, { recursive: true });
  for (const template of prepared.prompts.values()) {
    await writeFile(paths.prompt(template.name, template.version), template.text, 'utf8');
  }
  // A world seed at a time: the run's worlds are never all held at once.
  await writeGeneratedWorlds(paths, frozen.manifest);
  await writeJsonFile(paths.plan, plan);
  if (options.catalog !== undefined) await writeJsonFile(paths.catalog, options.catalog);

  await writeStartingHistoryNotebooks(paths, frozen.manifest);

  const createdAt = frozen.manifest.createdAt;
  const status: RunStatus = {
    kind: 'run-status',
    runId: prepared.runId,
    manifestSha256: frozen.sha256,
    state: 'running',
    startedAt: createdAt,
    updatedAt: createdAt,
    finishedAt: null,
    resumes: 0,
    requests: { total: plan.requests.length, resolved: 0, failed: 0, abandoned: 0, notSent: 0 },
    spend: { ceilingUsd: runCeilingUsd(frozen.manifest), committedUsd: 0, chargedUsd: 0 },
    stop: null,
    blocks: { complete: 0, incomplete: 0, notStarted: plan.blocks.length },
    elapsedMs: 0,
    exitCode: null,
  };
  await writeJsonFile(paths.status, status);
  if (options.settings.calibration != null)
    await writeFileAtomic(paths.calibration, calibrationFileText(options.settings.calibration), {
      durable: true,
    });
  // The manifest goes last and durably: its presence marks a fully created run folder.
  await writeFileAtomic(paths.manifest, frozen.text, { durable: true });
  await writeFileAtomic(paths.manifestSha256, `${frozen.sha256}  ${RUN_FILE_NAME.manifest}\n`, {
    durable: true,
  });
  return { runDir, runId: prepared.runId, frozen, plan };
}
