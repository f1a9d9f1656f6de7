import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { divergence } from '@chi/experiments';
import {
  DIVERGENCE_PROTOCOL_ID,
  type DivergenceManifest,
  divergenceManifestOf,
} from '@chi/experiments/internal';
import { openRunFolder, type RunPaths } from '@chi/run';
import { RUN_FILE_NAME, runFolderPaths } from '@chi/run/internal';
import {
  type ChatModel,
  InvalidArgumentError,
  type ModelCatalog,
  RunFolderDamagedError,
  type RunManifest,
  type SmokeResult,
  type SystemSpec,
} from '@chi/spec';
import { RunPlanSchema } from '@chi/spec/internal';
import { type LiveModelContext, modelForSystem } from '../endpoints/system-models';
import type { PilotEventSink } from '../events';
import type { AnyExperiment } from '../experiments/experiment';
import { runPilot } from '../pilot';
import type { PilotSettings } from '../pilot-settings';
import { readFrozenManifest } from '../run-folder/manifest';
import { createRun } from '../run-folder/run-create';
import { readJsonFile } from '../run-folder/run-folder';
import type { ExecuteOutcome, InstanceModelFactory } from '../runner/execute-options';
import { defaultOfflineSettings } from '../settings';
import { analyzeDivergence, type DivergenceAnalysis } from './analyze';
import { readDivergenceOutcomes } from './attempt-outcomes';
import {
  type DivergenceCallRecord,
  divergenceCalls,
  type IncompleteInstance,
  incompleteInstances,
} from './calls';
import { writeDivergenceRelease } from './release';
import { chisLogFiles, type DivergenceRecomputation } from './release-evidence';
import { divergenceEntries } from './score';
import {
  DIVERGENCE_SYSTEM_NAMES,
  divergenceSystemSpec,
  scriptedDivergenceInstance,
} from './scripted-divergence';

/** Root seed of the divergence protocol's world seeds (the pilot's). */
export const DIVERGENCE_ROOT_SEED = 20260901;
/** Analysis seed (the pilot's). */
export const DIVERGENCE_ANALYSIS_SEED = 20260902;
/** Seed of the scripted systems' declared noise. */
export const DIVERGENCE_SCRIPTED_SEED = 20260901;

/**
 * Files of a divergence run folder: the shared runner's layout (`runFolderPaths` of `@chi/run`,
 * the one place run-folder paths are built); the CHIS log is `chis/<systemId>.jsonl`, as the pilot's.
 */
export const divergencePaths: (runDir: string) => RunPaths = runFolderPaths;

/**
 * The experiment registry of a divergence run: the divergence protocol alone (the module of the
 * `divergence` folder of `@chi/experiments`, one of its `PROTOCOL_EXPERIMENTS`).
 */
export const DIVERGENCE_REGISTRY: readonly AnyExperiment[] = [divergence.experiment];

/** What a divergence run is made of beyond its number of worlds. */
export interface DivergenceSelection {
  /** The systems; default the three scripted divergence baselines. */
  readonly systems?: readonly SystemSpec[];
  /** Bootstrap resamples (default 2000). */
  readonly resamples?: number;
  /**
   * Root seed of the world seeds (`--seed`; default `DIVERGENCE_ROOT_SEED`). Frozen in the
   * manifest as the world seeds it gives; resume and verify read the manifest's.
   */
  readonly rootSeed?: number;
  /** USD ceiling of the scored requests (0 for scripted systems only). */
  readonly ceilingUsd?: number;
  /** Requests in flight at once (default the pilot's). */
  readonly concurrency?: number;
}

/**
 * The pilot settings of a divergence run (`createRun` freezes them into a `RunManifest` with
 * `experiments.divergence`): `worlds` world seeds from the pilot's root seed, the pilot's
 * analysis seed, and the default pilot's budget and transport settings; a run with a live system
 * requires its smoke check.
 */
export function divergenceSettings(
  worlds: number,
  selection: DivergenceSelection = {},
): PilotSettings {
  if (!Number.isInteger(worlds) || worlds < 1)
    throw new InvalidArgumentError(
      'worlds',
      `expected a positive integer, found ${String(worlds)}`,
    );
  const systems =
    selection.systems ??
    DIVERGENCE_SYSTEM_NAMES.map((name) => divergenceSystemSpec(name, DIVERGENCE_SCRIPTED_SEED));
  return defaultOfflineSettings({
    systems: [...systems],
    replicates: worlds,
    rootSeed: selection.rootSeed ?? DIVERGENCE_ROOT_SEED,
    analysisSeed: DIVERGENCE_ANALYSIS_SEED,
    resamples: selection.resamples ?? 2000,
    ceilingUsd: selection.ceilingUsd ?? 0,
    requireSmoke: systems.some((system) => system.kind !== 'scripted'),
    ...(selection.concurrency === undefined ? {} : { concurrency: selection.concurrency }),
  });
}

/**
 * The model of every instance (`executeRun`'s `modelFor`): a divergence scripted system in
 * process (a fresh object per instance, seeded per instance: hidden state stays inside it); a
 * live system (OpenRouter or an OpenAI-compatible endpoint) through the default pilot's
 * transport with the run's ledger, one model object per system (the transport keeps no
 * conversation state).
 */
export function divergenceModels(
  manifest: RunManifest,
  context: LiveModelContext = {},
): InstanceModelFactory {
  const live = new Map<string, ChatModel>();
  for (const system of manifest.systems)
    if (system.kind !== 'scripted') live.set(system.id, modelForSystem(system, manifest, context));
  return (system, blockId) => live.get(system.id) ?? scriptedDivergenceInstance(system, blockId);
}

/** Options of one session of a divergence run ({@link runDivergenceSession}). */
export interface DivergenceSessionOptions {
  readonly runDir: string;
  /** The settings of a new run ({@link divergenceSettings}); absent: resume `runDir`. */
  readonly settings?: PilotSettings;
  /** Keys by variable name (never written anywhere); a system reads only the one it names. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly catalog?: ModelCatalog;
  readonly fetch?: typeof globalThis.fetch;
  /** Clock of the manifest, the attempt log and the live transports (tests comparing bytes). */
  readonly now?: () => Date;
  /** Monotonic clock of the transports' `latencyMs` (tests comparing published bytes). */
  readonly elapsedMs?: () => number;
  /** Ceiling of the smoke checks (default 1 USD). */
  readonly smokeCeilingUsd?: number;
  readonly allowFailedSmoke?: boolean;
  /** Requests in flight at once; the manifest's by default. */
  readonly concurrency?: number;
  /** Replaces the models of every instance (tests); default {@link divergenceModels}. */
  readonly modelFor?: InstanceModelFactory;
  readonly signal?: AbortSignal;
  /** The shared runner's events (run created with its folder, requests finished, ...), for progress. */
  readonly onEvent?: PilotEventSink;
}

/** What a session did. */
export interface DivergenceSessionOutcome {
  readonly runDir: string;
  readonly smoke: readonly SmokeResult[];
  readonly execution: ExecuteOutcome;
  /** The release folder when every request ended; null when the run stopped early. */
  readonly releaseDir: string | null;
  /** The analysis of the release; null when none was written. */
  readonly analysis: DivergenceAnalysis | null;
  /** 0, or 3 when the run stopped early or left an instance incomplete. */
  readonly exitCode: number;
}

/**
 * Creates (with `settings`) or resumes a divergence run folder and runs it on the shared runner
 * (`runPilot` over `executeRun`): the manifest frozen before any request (checkpoints and
 * primary checkpoint preregistered in `experiments.divergence`), the plan, the hash-chained
 * attempt log, `blocks.json`/`status.json`, the ledger (reconciled with the attempt log on
 * resume) and the smoke checks a live run requires; then, when every request ended, writes
 * the CHIS log (`chis/<systemId>.jsonl`) and the release.
 *
 * @throws `SmokeCheckFailedError` (exit 4) when a required smoke check failed
 */
export async function runDivergenceSession(
  options: DivergenceSessionOptions,
): Promise<DivergenceSessionOutcome> {
  if (options.settings === undefined) await assertRunnerFolder(options.runDir);
  let analysis: DivergenceAnalysis | null = null;
  const outcome = await runPilot({
    ...(options.settings === undefined
      ? { resumeDir: options.runDir }
      : { settings: options.settings, runDir: options.runDir }),
    experiments: DIVERGENCE_REGISTRY,
    instanceModels: (manifest, context) =>
      options.modelFor ??
      divergenceModels(manifest, {
        ...context,
        ...(options.now === undefined ? {} : { now: options.now }),
        ...(options.elapsedMs === undefined ? {} : { elapsedMs: options.elapsedMs }),
      }),
    finish: async (runDir, execution) => {
      if (execution.state !== 'completed') return null;
      const written = await writeReleaseWithProgress(
        runDir,
        options.onEvent ?? (() => {}),
        options.env,
      );
      analysis = written.analysis;
      return written.releaseDir;
    },
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.catalog === undefined ? {} : { catalog: options.catalog }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.smokeCeilingUsd === undefined ? {} : { smokeCeilingUsd: options.smokeCeilingUsd }),
    ...(options.allowFailedSmoke === undefined
      ? {}
      : { allowFailedSmoke: options.allowFailedSmoke }),
    ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.onEvent === undefined ? {} : { onEvent: options.onEvent }),
  });
  return {
    runDir: outcome.runDir,
    smoke: outcome.smoke,
    execution: outcome.execution,
    releaseDir: outcome.releaseDir,
    analysis,
    exitCode: outcome.exitCode,
  };
}

/**
 * Recomputes the analysis and writes the release of a run whose requests all ended, telling the
 * progress sink each step as the default pilot does (`finishing`, then `release-written`).
 */
async function writeReleaseWithProgress(
  runDir: string,
  emit: PilotEventSink,
  env: Readonly<Record<string, string | undefined>> | undefined,
): Promise<{ readonly analysis: DivergenceAnalysis; readonly releaseDir: string }> {
  emit({
    type: 'finishing',
    step: 'analyze',
    detail:
      'reading the attempt log, writing the CHIS log and computing the clustered-bootstrap intervals',
  });
  // the release needs the entries and the analysis, not every world's call records
  const recomputed = releaseInputOf(await finishDivergenceRun(runDir));
  emit({
    type: 'finishing',
    step: 'write',
    detail: 'writing the release (tables, figures, report, README) and SHA256SUMS',
  });
  const releaseDir = await writeDivergenceRelease(
    runDir,
    recomputed,
    env === undefined ? {} : { env },
  );
  emit({ type: 'release-written', releaseDir });
  return { analysis: recomputed.analysis, releaseDir };
}

/**
 * Creates a divergence run folder without sending anything (`createRun` with the divergence
 * registry): the manifest, its hash, the plan, the prompts and a `running` status.
 */
export async function createDivergenceRun(
  runDir: string,
  settings: PilotSettings,
  options: { readonly now?: () => Date; readonly catalog?: ModelCatalog } = {},
): Promise<void> {
  await createRun({
    settings,
    runDir,
    experiments: DIVERGENCE_REGISTRY,
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.catalog === undefined ? {} : { catalog: options.catalog }),
  });
}

/** Options of {@link runDivergenceProtocol}. */
export interface RunDivergenceOptions {
  readonly runDir: string;
  /** Number of worlds (default 8). */
  readonly worlds?: number;
  /** Bootstrap resamples (default 2000). */
  readonly resamples?: number;
  /** Root seed of the world seeds (default `DIVERGENCE_ROOT_SEED`). */
  readonly rootSeed?: number;
  /** Fixed clock of the manifest and the attempt log; default now. */
  readonly now?: () => Date;
  /** The models of every instance; default the scripted divergence systems. */
  readonly modelFor?: InstanceModelFactory;
  readonly concurrency?: number;
  /** The systems (default the three scripted divergence systems). */
  readonly systems?: readonly SystemSpec[];
}

/**
 * Runs the divergence protocol offline end to end with the scripted baselines: freezes the
 * manifest (checkpoints and primary checkpoint included) before the first request, runs every
 * instance on the shared runner, writes the CHIS log and the release, and returns the analysis.
 */
export async function runDivergenceProtocol(options: RunDivergenceOptions): Promise<{
  manifest: DivergenceManifest;
  manifestSha256: string;
  analysis: DivergenceAnalysis;
}> {
  await runDivergenceSession({
    runDir: options.runDir,
    settings: divergenceSettings(options.worlds ?? 8, {
      ...(options.resamples === undefined ? {} : { resamples: options.resamples }),
      ...(options.rootSeed === undefined ? {} : { rootSeed: options.rootSeed }),
      ...(options.systems === undefined ? {} : { systems: options.systems }),
    }),
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.modelFor === undefined ? {} : { modelFor: options.modelFor }),
    ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
  });
  return recomputeDivergence(options.runDir);
}

/**
 * Writes the CHIS log of a run whose requests have all ended, as the pilot does
 * (`chis/<systemId>.jsonl`, every instance's entries), and returns its recomputation (the caller
 * writes the release): the same recomputation `chi verify` does.
 */
export async function finishDivergenceRun(runDir: string): Promise<DivergenceRecomputed> {
  const recomputed = await recomputeDivergence(runDir);
  await mkdir(divergencePaths(runDir).chisDir, { recursive: true });
  for (const [path, text] of chisLogFiles(recomputed.manifest, recomputed.entries))
    await writeFile(join(runDir, ...path.split('/')), text);
  return recomputed;
}

/**
 * What the release is written (and `chi verify` compares) from: a recomputation without its call
 * records, so that writing or checking the release does not hold every world's calls.
 */
export function releaseInputOf(recomputed: DivergenceRecomputation): DivergenceRecomputation {
  const { manifest, analysis, entries, excluded } = recomputed;
  return { manifest, analysis, entries, excluded };
}

/** What {@link recomputeDivergence} returns. */
export interface DivergenceRecomputed extends DivergenceRecomputation {
  readonly manifestSha256: string;
  readonly calls: DivergenceCallRecord[];
  readonly excluded: IncompleteInstance[];
}

/**
 * Reads a divergence run folder (or the raw part of its release: `manifest.json`,
 * `manifest.sha256`, `plan.json`, `attempts.jsonl`, with the request index and payloads) and
 * recomputes its analysis from the raw replies: what `chi verify` does. Every system's requests
 * on every world are scored by `divergenceScorer` through the report's per-world pass, with the
 * messages as sent (`divergenceCalls`). An instance the runner's block rule left incomplete is
 * excluded from every dynamic, and why is published.
 *
 * @throws `RunFolderDamagedError` (exit 5) for a folder without `plan.json` (written by the
 *   sequential executor before the port), an unreadable, invalid or torn attempt log, an
 *   attempt made under another manifest, or a request whose payload is missing or damaged
 */
export async function recomputeDivergence(runDir: string): Promise<DivergenceRecomputed> {
  await assertRunnerFolder(runDir);
  const paths = divergencePaths(runDir);
  const frozen = await readManifestOrDamaged(runDir);
  const manifest = divergenceManifestOf(frozen.manifest);
  const plan = await readJsonFile(paths.plan, RunPlanSchema);
  // streamed: a result's reply text is read from its line when scored, never held for every world
  const outcomes = await readDivergenceOutcomes(paths.attempts, frozen.sha256);
  const excluded = incompleteInstances(plan, outcomes, paths.attempts);
  // Scored by the divergence scorer through the report's per-world pass, messages as sent.
  const folder = openRunFolder(runDir);
  const calls = divergenceCalls(
    {
      manifest: frozen.manifest,
      plan,
      requests: { get: (requestId) => folder.readRequestSync(requestId) ?? undefined },
      outcomes,
      requestSha256: (requestId) => folder.readRequestIndexSync().get(requestId)?.requestSha256,
    },
    excluded,
  );
  const entries = divergenceEntries(manifest, calls);
  return {
    manifest,
    manifestSha256: frozen.sha256,
    analysis: analyzeDivergence(manifest, frozen.sha256, entries, excluded),
    entries,
    calls,
    excluded,
  };
}

/** Whether `runDir` holds a divergence run (its manifest names the divergence protocol). */
export async function isDivergenceRunFolder(runDir: string): Promise<boolean> {
  try {
    const value = JSON.parse(await readFile(divergencePaths(runDir).manifest, 'utf8')) as {
      kind?: unknown;
      protocol?: unknown;
    };
    return value.kind === 'divergence-manifest' || value.protocol === DIVERGENCE_PROTOCOL_ID;
  } catch {
    return false;
  }
}

/**
 * Refuses a divergence folder of the sequential executor (before the port: `calls.jsonl`, no
 * `plan.json`), which this version can neither resume nor verify.
 *
 * @throws `RunFolderDamagedError` (exit 5) naming the missing `plan.json`
 */
async function assertRunnerFolder(runDir: string): Promise<void> {
  const paths = divergencePaths(runDir);
  if (existsSync(paths.plan)) return;
  let kind: unknown;
  try {
    kind = (JSON.parse(await readFile(paths.manifest, 'utf8')) as { kind?: unknown }).kind;
  } catch {
    kind = undefined;
  }
  throw new RunFolderDamagedError(
    paths.plan,
    kind === 'divergence-manifest'
      ? `missing: a divergence run of the sequential executor (calls.jsonl, no ${RUN_FILE_NAME.plan}), which this version cannot resume or verify; start a new run`
      : 'missing: not a divergence run folder of the shared runner',
  );
}

/** The frozen manifest; an edited, non-canonical or invalid one is a damaged folder (exit 5). */
async function readManifestOrDamaged(runDir: string) {
  try {
    return await readFrozenManifest(runDir);
  } catch (error) {
    throw new RunFolderDamagedError(divergencePaths(runDir).manifest, (error as Error).message, {
      cause: error,
    });
  }
}
