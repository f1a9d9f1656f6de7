import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createJsonlWriter } from '@chi/chis';
import { createFileLedger, type FileLedger } from '@chi/openrouter';
import {
  canonicalJson,
  parseRunJsonl,
  type RunPaths,
  readRunJsonl,
  runFolderPaths,
} from '@chi/run';
import {
  type ChatModel,
  DivergenceManifestSchema,
  InvalidArgumentError,
  type ModelCatalog,
  RunFolderDamagedError,
  type SmokeResult,
  type SystemSpec,
} from '@chi/spec';
import { deriveSeed } from '@chi/worlds';
import { SmokeCheckFailedError } from '../pilot';
import { loadPromptTemplates, type PromptSet, promptRefs } from '../prompts';
import { mayResendUncertain } from '../run-execute';
import { readJsonFile } from '../run-folder';
import { latestSmokeResults, runSmokeChecks } from '../smoke';
import { type LiveModelContext, modelForSystem } from '../system-models';
import { analyzeDivergence, type DivergenceAnalysis } from './analyze';
import {
  type DivergenceCallRecord,
  type DivergenceLogLine,
  DivergenceLogLineSchema,
  type DivergenceResumeState,
  DivergenceSendRecordSchema,
  executeDivergence,
  type IncompleteInstance,
  type InstanceModelFactory,
  incompleteBy,
} from './execute';
import {
  buildDivergenceManifest,
  type DivergenceLiveSettings,
  type DivergenceManifest,
  divergenceManifestSha256,
} from './manifest';
import { armCalls } from './protocol';
import { divergenceEntries } from './score';
import {
  createDivergenceInstanceModel,
  DIVERGENCE_SYSTEM_NAMES,
  divergenceSystemSpec,
  instanceSeed,
} from './scripted-divergence';

/** Root seed of the divergence protocol's world seeds (the pilot's). */
export const DIVERGENCE_ROOT_SEED = 20260901;
/** Analysis seed (the pilot's). */
export const DIVERGENCE_ANALYSIS_SEED = 20260902;
/** Seed of the scripted systems' declared noise. */
export const DIVERGENCE_SCRIPTED_SEED = 20260901;

/**
 * Files of a divergence run folder: the paths of `@chi/run`'s layout table (`runFolderPaths`,
 * the one place run-folder paths are built), of which a divergence run uses `manifest`,
 * `divergenceCalls`, `divergenceSends`, `ledger`, `smoke`, `smokeLedger`, `catalog`,
 * `divergenceChis` and `releaseDir`.
 */
export const divergencePaths: (runDir: string) => RunPaths = runFolderPaths;

/** The offline default: the three scripted divergence systems over `worlds` seeded worlds. */
export function defaultDivergenceManifest(
  worlds: number,
  createdAt: string,
  prompts: PromptSet,
  resamples?: number,
  selection: {
    readonly systems?: readonly SystemSpec[];
    readonly live?: Partial<DivergenceLiveSettings>;
  } = {},
): DivergenceManifest {
  if (!Number.isInteger(worlds) || worlds < 1)
    throw new InvalidArgumentError(
      'worlds',
      `expected a positive integer, found ${String(worlds)}`,
    );
  return buildDivergenceManifest({
    worldSeeds: Array.from({ length: worlds }, (_, k) =>
      deriveSeed(DIVERGENCE_ROOT_SEED, 'world', k),
    ),
    systems:
      selection.systems ??
      DIVERGENCE_SYSTEM_NAMES.map((name) => divergenceSystemSpec(name, DIVERGENCE_SCRIPTED_SEED)),
    prompts,
    createdAt,
    analysisSeed: DIVERGENCE_ANALYSIS_SEED,
    ...(resamples === undefined ? {} : { resamples }),
    ...(selection.live === undefined ? {} : { live: selection.live }),
  });
}

/**
 * The model of every instance: a divergence scripted system in process (a fresh object per
 * instance, seeded per instance: hidden state stays inside it); a live system (OpenRouter or an
 * OpenAI-compatible endpoint) through the default pilot's transport, with the run's ledger, one
 * model object per system (the transport keeps no conversation state).
 */
export function divergenceModels(
  manifest: DivergenceManifest,
  context: LiveModelContext = {},
): InstanceModelFactory {
  const live = new Map<string, ChatModel>();
  for (const system of manifest.systems)
    if (system.kind !== 'scripted') live.set(system.id, modelForSystem(system, manifest, context));
  const seeds = new Map(manifest.systems.map((system) => [system.id, system.scripted?.seed ?? 0]));
  const models = new Map(manifest.systems.map((system) => [system.id, system.model]));
  return (systemId, worldSeed, armId) =>
    live.get(systemId) ??
    createDivergenceInstanceModel(
      (models.get(systemId) ?? systemId).replace(/^scripted\//, ''),
      instanceSeed(seeds.get(systemId) ?? 0, worldSeed, armId),
    );
}

/** Scripted instances: a fresh model object per instance, seeded per instance. */
export function scriptedDivergenceModels(manifest: DivergenceManifest): InstanceModelFactory {
  return divergenceModels(manifest);
}

/**
 * Creates a divergence run folder: `manifest.json` (canonical JSON, written once and never
 * again: the preregistration of the checkpoints and the primary checkpoint) and an empty
 * `calls.jsonl`, before any request. Refuses a folder that already holds a manifest.
 */
export async function createDivergenceRun(
  runDir: string,
  manifest: DivergenceManifest,
): Promise<void> {
  const paths = divergencePaths(runDir);
  await mkdir(runDir, { recursive: true });
  DivergenceManifestSchema.parse(manifest);
  await writeFile(paths.manifest, `${canonicalJson(manifest)}\n`, { flag: 'wx' });
  await writeFile(paths.divergenceCalls, '', { flag: 'wx' });
}

/**
 * Reads `manifest.json` of a divergence run folder, schema-checked (`DivergenceManifestSchema`).
 *
 * @throws `RunFolderDamagedError` (exit 5) naming the file and the field for a missing, non-JSON
 *   or invalid manifest
 */
export async function readDivergenceManifest(runDir: string): Promise<DivergenceManifest> {
  const path = divergencePaths(runDir).manifest;
  try {
    await readFile(path);
  } catch (error) {
    throw new RunFolderDamagedError(path, 'missing or unreadable', { cause: error });
  }
  return readJsonFile(path, DivergenceManifestSchema);
}

/** Whether `runDir` holds a divergence run (its manifest names the divergence protocol). */
export async function isDivergenceRunFolder(runDir: string): Promise<boolean> {
  try {
    const value = JSON.parse(await readFile(divergencePaths(runDir).manifest, 'utf8')) as {
      kind?: unknown;
    };
    return value.kind === 'divergence-manifest';
  } catch {
    return false;
  }
}

/** Options of one session of a divergence run ({@link executeDivergenceSession}). */
export interface DivergenceSessionOptions {
  readonly runDir: string;
  /** Keys by variable name (never written anywhere); a system reads only the one it names. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly catalog?: ModelCatalog;
  readonly fetch?: typeof globalThis.fetch;
  /** Clock of the live transports (tests comparing published bytes). */
  readonly now?: () => Date;
  /** Monotonic clock of the transports' `latencyMs` (tests comparing published bytes). */
  readonly elapsedMs?: () => number;
  /** Ceiling of the smoke checks (default 1 USD). */
  readonly smokeCeilingUsd?: number;
  readonly allowFailedSmoke?: boolean;
  /** Replaces the models of every instance (tests); default {@link divergenceModels}. */
  readonly modelFor?: InstanceModelFactory;
  /** The prompt set; default the shipped templates. Must hash as the manifest froze it. */
  readonly prompts?: PromptSet;
}

/** What a session did. */
export interface DivergenceSessionOutcome {
  readonly smoke: readonly SmokeResult[];
  /** Instances ended by an infrastructure failure or an abandoned request (excluded, with why). */
  readonly incomplete: readonly IncompleteInstance[];
}

/**
 * Runs (or resumes) the requests of a divergence run folder: reads the frozen manifest, opens the
 * budget ledger (live systems: every request reserves its worst case there before it is sent, and
 * the ledger refuses a reservation past the manifest's ceiling), runs the smoke checks the
 * manifest requires (once per system: a system whose scored requests started is not checked
 * again), then executes the protocol, appending each request's send record before it goes out
 * and its result after (both through the crash-safe JSONL writer of `@chi/chis`, which drops a
 * torn last line on open).
 *
 * @throws `SmokeCheckFailedError` (exit 4) when a required smoke check failed
 */
export async function executeDivergenceSession(
  options: DivergenceSessionOptions,
): Promise<DivergenceSessionOutcome> {
  const paths = divergencePaths(options.runDir);
  const manifest = await readDivergenceManifest(options.runDir);
  const manifestSha256 = divergenceManifestSha256(manifest);
  const prompts = options.prompts ?? loadPromptTemplates();
  checkPrompts(manifest, prompts, paths.manifest);
  const resume = await readResumeState(options.runDir, manifestSha256);
  const live = manifest.systems.filter((system) => system.kind !== 'scripted');
  let ledger: FileLedger | undefined;
  const calls = await createJsonlWriter({
    path: paths.divergenceCalls,
    schema: DivergenceLogLineSchema,
    fsync: 'every-line',
  });
  const sends = await createJsonlWriter({
    path: paths.divergenceSends,
    schema: DivergenceSendRecordSchema,
    fsync: 'every-line',
  });
  try {
    const smoke = await divergenceSmoke(options, manifest, resume);
    if (live.length > 0)
      ledger = await createFileLedger({
        path: paths.ledger,
        ceilingUsd: manifest.ceilingUsd,
        repairTornTail: true,
      });
    const systems = new Map(manifest.systems.map((system) => [system.id, system]));
    const incomplete = await executeDivergence({
      manifest,
      manifestSha256,
      prompts,
      modelFor: options.modelFor ?? sessionModels(options, manifest, ledger),
      record: (line) => calls.append(line),
      beforeSend: (requestId, requestSha256) =>
        sends.append({ kind: 'divergence-send', manifestSha256, requestId, requestSha256 }),
      resume,
      mayResend: (systemId) => {
        const system = systems.get(systemId);
        return system !== undefined && mayResendUncertain(system);
      },
      replaysLocally: (systemId) => systems.get(systemId)?.kind === 'scripted',
    });
    return { smoke, incomplete };
  } finally {
    await ledger?.close();
    await calls.close();
    await sends.close();
  }
}

/** The instances' models of a session: live ones with the run's ledger and the session's context. */
function sessionModels(
  options: DivergenceSessionOptions,
  manifest: DivergenceManifest,
  ledger: FileLedger | undefined,
): InstanceModelFactory {
  return divergenceModels(manifest, {
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(ledger === undefined ? {} : { ledger }),
    ...(options.catalog === undefined ? {} : { catalog: options.catalog }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.elapsedMs === undefined ? {} : { elapsedMs: options.elapsedMs }),
  });
}

/** Refuses to send anything when a template the manifest froze changed since (hash mismatch). */
function checkPrompts(manifest: DivergenceManifest, prompts: PromptSet, path: string): void {
  const current = new Map(promptRefs(prompts).map((ref) => [ref.name, ref.sha256]));
  for (const ref of manifest.prompts)
    if (current.get(ref.name) !== ref.sha256)
      throw new RunFolderDamagedError(
        path,
        `prompts: template ${ref.name} hashes to ${current.get(ref.name) ?? 'nothing (missing)'}, but the manifest froze ${ref.sha256}; nothing was sent`,
      );
}

/** The smoke checks a live divergence run requires before its first scored request. */
async function divergenceSmoke(
  options: DivergenceSessionOptions,
  manifest: DivergenceManifest,
  resume: DivergenceResumeState,
): Promise<SmokeResult[]> {
  const paths = divergencePaths(options.runDir);
  const live = manifest.systems.filter((system) => system.kind !== 'scripted');
  if (!manifest.requireSmoke || live.length === 0) return [];
  const recorded = await latestSmokeResults(paths.smoke);
  const started = new Set([...resume.logged.values()].map((line) => line.systemId));
  const missing = live.filter(
    (system) => recorded.get(system.id)?.passed !== true && !started.has(system.id),
  );
  if (missing.length === 0) return [];
  const smoke = await runSmokeChecks({
    systems: missing,
    ...(options.env === undefined ? {} : { env: options.env }),
    ceilingUsd: options.smokeCeilingUsd ?? 1,
    logPath: paths.smoke,
    ledgerPath: paths.smokeLedger,
    ...(options.catalog === undefined ? {} : { catalog: options.catalog }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  if (smoke.some((result) => !result.passed) && options.allowFailedSmoke !== true)
    throw new SmokeCheckFailedError(smoke);
  return smoke;
}

/**
 * What earlier sessions left: the lines of `calls.jsonl` (a torn last line is not one: the writer
 * drops it when it opens the file) and the requests sent but never logged.
 */
async function readResumeState(
  runDir: string,
  manifestSha256: string,
): Promise<DivergenceResumeState> {
  const paths = divergencePaths(runDir);
  const lines = readCallLog(
    await readOrDamaged(paths.divergenceCalls),
    paths.divergenceCalls,
    manifestSha256,
    {
      tornTail: 'skip',
    },
  );
  const logged = new Map(lines.map((line) => [line.requestId, line]));
  let sendRecords: { requestId: string }[];
  try {
    sendRecords = (await readRunJsonl(paths.divergenceSends, DivergenceSendRecordSchema)).records;
  } catch (error) {
    throw new RunFolderDamagedError(paths.divergenceSends, (error as Error).message, {
      cause: error,
    });
  }
  const open = new Set(
    sendRecords.map((record) => record.requestId).filter((id) => !logged.has(id)),
  );
  return { logged, open };
}

/** Options of {@link runDivergenceProtocol}. */
export interface RunDivergenceOptions {
  readonly runDir: string;
  /** Number of worlds (default 8). */
  readonly worlds?: number;
  /** Bootstrap resamples (default 2000). */
  readonly resamples?: number;
  /** Fixed manifest timestamp; default now. */
  readonly createdAt?: string;
  readonly prompts?: PromptSet;
  /** The models of every instance; default the scripted divergence systems. */
  readonly modelFor?: InstanceModelFactory;
}

/**
 * Runs the divergence protocol offline end to end: freezes the manifest (checkpoints and primary
 * checkpoint included) before the first request, executes every arm, appends every call to
 * `calls.jsonl`, writes the CHIS entries and returns the analysis (the caller writes the release).
 */
export async function runDivergenceProtocol(
  options: RunDivergenceOptions,
): Promise<{ manifest: DivergenceManifest; manifestSha256: string; analysis: DivergenceAnalysis }> {
  const prompts = options.prompts ?? loadPromptTemplates();
  const manifest = defaultDivergenceManifest(
    options.worlds ?? 8,
    options.createdAt ?? new Date().toISOString(),
    prompts,
    options.resamples,
  );
  await createDivergenceRun(options.runDir, manifest);
  await executeDivergenceSession({
    runDir: options.runDir,
    prompts,
    ...(options.modelFor === undefined ? {} : { modelFor: options.modelFor }),
  });
  return finishDivergenceRun(options.runDir);
}

/**
 * Writes `chis.jsonl` of a run whose requests are all logged and returns its analysis (the
 * caller writes the release): the same recomputation `chi verify` does.
 */
export async function finishDivergenceRun(runDir: string): Promise<{
  manifest: DivergenceManifest;
  manifestSha256: string;
  analysis: DivergenceAnalysis;
}> {
  const recomputed = await recomputeDivergence(runDir);
  const entries = divergenceEntries(recomputed.manifest, recomputed.calls);
  await writeFile(
    divergencePaths(runDir).divergenceChis,
    entries.map((entry) => `${JSON.stringify(entry)}\n`).join(''),
  );
  return recomputed;
}

/**
 * Reads a divergence run folder (manifest and call log) and recomputes its analysis from the raw
 * replies: what `chi verify` does. An instance ended by an infrastructure failure or an abandoned
 * request is excluded from every dynamic, and why is published. Throws `RunFolderDamagedError`
 * when a call was made under another manifest or an instance's log stops short without a reason
 * (a run not finished: resume it).
 */
export async function recomputeDivergence(runDir: string): Promise<{
  manifest: DivergenceManifest;
  manifestSha256: string;
  analysis: DivergenceAnalysis;
  calls: DivergenceCallRecord[];
}> {
  const paths = divergencePaths(runDir);
  const manifest = await readDivergenceManifest(runDir);
  const manifestSha256 = divergenceManifestSha256(manifest);
  const lines = readCallLog(
    await readOrDamaged(paths.divergenceCalls),
    paths.divergenceCalls,
    manifestSha256,
  );
  const excluded = incompleteInstances(manifest, lines, paths.divergenceCalls);
  const excludedKeys = new Set(excluded.map(instanceKey));
  const calls = lines.filter(
    (line): line is DivergenceCallRecord =>
      line.kind === 'divergence-call' && !excludedKeys.has(instanceKey(line)),
  );
  const entries = divergenceEntries(manifest, calls);
  return {
    manifest,
    manifestSha256,
    analysis: analyzeDivergence(manifest, manifestSha256, entries, excluded),
    calls,
  };
}

function instanceKey(where: { systemId: string; worldSeed: number; arm: string }): string {
  return `${where.systemId}|${where.worldSeed}|${where.arm}`;
}

/**
 * Checks every instance's log against the manifest's plan and returns the incomplete ones: an
 * instance has all its planned calls, or fewer ending in the line that made it incomplete.
 */
function incompleteInstances(
  manifest: DivergenceManifest,
  lines: readonly DivergenceLogLine[],
  path: string,
): IncompleteInstance[] {
  const byInstance = new Map<string, DivergenceLogLine[]>();
  for (const line of lines) {
    const list = byInstance.get(instanceKey(line)) ?? [];
    list.push(line);
    byInstance.set(instanceKey(line), list);
  }
  const incomplete: IncompleteInstance[] = [];
  for (const worldSeed of manifest.worldSeeds)
    for (const system of manifest.systems)
      for (const arm of manifest.arms) {
        const where = { systemId: system.id, worldSeed, arm: arm.id };
        const logged = byInstance.get(instanceKey(where)) ?? [];
        const planned = armCalls(arm).length;
        const last = logged[logged.length - 1];
        const ended = last === undefined ? null : incompleteBy(last);
        if (ended !== null) incomplete.push(ended);
        else if (logged.length !== planned)
          throw new RunFolderDamagedError(
            path,
            `instance ${where.systemId} world ${worldSeed} arm ${arm.id} has ${logged.length} of its ${planned} calls and no reason it stopped: the run is not finished (resume it with chi pilot --resume)`,
          );
      }
  return incomplete;
}

/**
 * Parses `calls.jsonl` with the run folder's one JSONL rule (`parseRunJsonl` of `@chi/run`):
 * every line validated against `DivergenceLogLineSchema`, a bad line a damaged folder naming the
 * file and line, and so is a call made under another manifest. A torn final line (a write the run
 * never finished) is damage when reading a finished run; a resuming session skips it (`tornTail:
 * 'skip'`), and its writer truncates it before appending.
 */
export function readCallLog(
  text: string,
  path: string,
  manifestSha256: string,
  options: { readonly tornTail?: 'damaged' | 'skip' } = {},
): DivergenceLogLine[] {
  let parsed: ReturnType<typeof parseRunJsonl<typeof DivergenceLogLineSchema>>;
  try {
    parsed = parseRunJsonl(text, DivergenceLogLineSchema, path);
  } catch (error) {
    throw new RunFolderDamagedError(path, (error as Error).message, { cause: error });
  }
  const { records, tornTail } = parsed;
  if (tornTail !== null && options.tornTail !== 'skip')
    throw new RunFolderDamagedError(
      path,
      `line ${records.length + 1} is torn (an unfinished write at byte offset ${tornTail.byteOffset}): it holds ${records.length} complete calls; resume the run to repair it`,
    );
  records.forEach((line, index) => {
    if (line.manifestSha256 !== manifestSha256)
      throw new RunFolderDamagedError(
        path,
        `line ${index + 1} carries manifest hash ${line.manifestSha256}, but manifest.json hashes to ${manifestSha256}`,
      );
  });
  return records;
}

async function readOrDamaged(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new RunFolderDamagedError(path, 'missing or unreadable', { cause: error });
  }
}
