import { join } from 'node:path';
import { BUILT_IN_EXPERIMENTS, type BuiltInExperiment } from '@chi/experiments';
import { DIVERGENCE_EXPERIMENT_ID, DIVERGENCE_PROTOCOL_ID } from '@chi/experiments/internal';
import { canonicalJson, sha256Hex } from '@chi/run';
import { RUN_FILE_NAME } from '@chi/run/internal';
import {
  ChiError,
  type GeneratorInfo,
  InvalidArgumentError,
  parseWith,
  type RunManifest,
  RunManifestSchema,
  type RunPlan,
} from '@chi/spec';
import { PILOT_FEATURE_SCHEMA, PILOT_FEATURES, type PromptRef } from '@chi/spec/internal';
import type { AnyExperiment, Experiment } from '../experiments/experiment';
import {
  PILOT_EXPERIMENT_IDS,
  PILOT_EXPERIMENTS,
  REGISTERED_EXPERIMENTS,
  selectExperiments,
} from '../experiments/registry';
import type { PilotSettings } from '../pilot-settings';
import { PROTOCOL_ID } from '../settings';
import { chiComparisonFor } from './chi-comparison';
import { readRunFileText } from './run-folder';

/** The rules a run follows on failures, frozen in every manifest as sentences. */
export const FAILURE_RULES: readonly string[] = [
  'Only explicit HTTP 429/5xx responses and pre-response connection failures are retryable infrastructure failures, with at most maxRetries retries; every wait is logged.',
  'Exhausted infrastructure retries, a budget refusal and an attempt abandoned on resume make the matched block incomplete; incomplete blocks are kept and published separately.',
  'A timeout (deadlineMs), a truncated, empty or invalid answer and an HTTP 4xx other than 429 are model failures: never retried, kept in the scored block as failures.',
  'A timeout or an otherwise uncertain outcome retains its whole reservation.',
  'A request that would cross the USD ceiling is not sent and the run stops; a charge above its reservation is recorded at its actual amount and stops new requests globally.',
  'A note-writing request that fails as a model failure leaves the notebook it returned (its text, capped) or an empty notebook when it returned no text; the trajectory continues from it.',
  'On resume, a request with before_send but no after_response is never re-sent for a paid system (abandoned, block incomplete); a scripted_baseline system (free, deterministic) is re-sent.',
  'Smoke checks are excluded from scored data.',
];

/**
 * The framework's "memory and scheduler policies" and "resets" as this runner applies them,
 * frozen in every manifest (docs/protocol.md, "What the manifest records").
 */
export const RUN_POLICIES: NonNullable<RunManifest['policies']> = {
  memory:
    'The memory system is the model plus an external notebook: the whole reply of an encode or update request is the notebook, made well-formed and truncated to notebookCapBytes UTF-8 bytes at a code-point boundary; probe replies never become memory.',
  reset:
    'Every request is a fresh conversation (the shared system message and one user message): no transcript is replayed and no provider-side memory is used; the only persisted state is the notebook. A history trajectory starts from an empty notebook at checkpoint 0.',
  scheduler:
    'Checkpoints count model invocations, not time: checkpoint 0 has no evidence, 1 ingests the history, 2 and 3 are neutral maintenance invocations, 4 ingests the authoritative correction; each update sees only the previous notes and the new event, each probe is a fresh clone that never feeds back. Requests run in plan order (world by world, systems interleaved within a block) with at most concurrency in flight, each once the notebook it reads exists.',
};

/**
 * The framework's "feature schemas": every feature vector the run reports, versioned. A version
 * changes whenever a feature's definition or coding changes (with a changeset).
 */
export const FEATURE_SCHEMAS: NonNullable<RunManifest['featureSchemas']> = [
  ...featureSchemasOf(PILOT_EXPERIMENTS),
  {
    // Across experiments: the features a human calibration is compared against
    // (manifest.chiComparison.featureSchema), from the behavior block and the smallest memory load.
    id: PILOT_FEATURE_SCHEMA,
    version: 1,
    features: PILOT_FEATURES.map((f) => `${f.axis}.${f.feature}`),
    coding: `The features h and CHI compare with a calibration's mu and s, per system as world means over complete blocks (the worlds where its behavior block and its memory block at the smallest notebook load are complete): ${PILOT_FEATURES.map((f) => `${f.axis}.${f.feature} (${f.test}) = ${f.definition}`).join('; ')}.`,
  },
];

/** The declarations of `experiments` in the manifest's `featureSchemas` shape. */
function featureSchemasOf(
  experiments: readonly AnyExperiment[],
): NonNullable<RunManifest['featureSchemas']> {
  return experiments.flatMap((experiment) =>
    experiment.features.map(({ id, version, features, coding }) => ({
      id,
      version,
      features: [...features],
      coding,
    })),
  );
}

/** An experiment's part of the manifest: its parameters, or null when it is not selected. */
function parametersIfSelected<Params>(
  experiment: Experiment<Params>,
  selected: readonly AnyExperiment[],
  settings: PilotSettings,
): Params | null {
  return selected.some((candidate) => candidate.id === experiment.id)
    ? experiment.parametersFrom(settings)
    : null;
}

/**
 * The experiments beyond the default three whose parameters have their own key in
 * `manifest.experiments`: every opt-in built-in experiment of the registry (`@chi/experiments`,
 * one folder each) and the divergence protocol (which a run includes only when its registry names it).
 */
function keyedExperimentIds(builtIns: readonly BuiltInExperiment[]): readonly string[] {
  return [...optInIds(builtIns), DIVERGENCE_EXPERIMENT_ID];
}

/** The built-in experiments a run includes only when `--templates` names them. */
function optInIds(builtIns: readonly BuiltInExperiment[]): readonly string[] {
  return builtIns.filter((builtIn) => !builtIn.inDefaultRun).map((b) => b.experiment.id);
}

/**
 * The opt-in built-in experiments (`inDefaultRun: false`: goal persistence, feedback valence)
 * have no wording for a system that keeps its own memory: under memory policy `system` each of
 * their steps would be an instance of its own with nothing carried over, so their numbers would
 * measure nothing. Refused before any
 * request (docs/protocol.md, "Memory systems"), never run and published as if they meant something.
 */
function refuseOptInUnderSystemMemory(
  settings: PilotSettings,
  selected: readonly AnyExperiment[],
  optInList: readonly string[],
): void {
  const optIn = selected.find((experiment) => optInList.includes(experiment.id));
  const holder = settings.systems.find((system) => system.memory === 'system');
  if (optIn === undefined || holder === undefined) return;
  throw new InvalidArgumentError(
    'templates',
    `${optIn.id} has no wording for memory policy system (system ${holder.id} keeps its own memory, so nothing would carry over between its steps): run it with notebook systems only`,
  );
}

/**
 * `manifest.experiments`: the pilot's three under their keys (null when left out), each built-in
 * experiment of the registry under its ID (absent when left out), and the parameters of
 * experiments added from outside the pilot under `added` (absent when none). An experiment that
 * is neither the pilot's nor a built-in of `builtIns` needs an ID `x-<name>`.
 */
function manifestExperiments(
  settings: PilotSettings,
  registry: readonly AnyExperiment[],
  builtIns: readonly BuiltInExperiment[],
): RunManifest['experiments'] {
  const keyedIds = keyedExperimentIds(builtIns);
  const own = [...PILOT_EXPERIMENT_IDS, ...keyedIds];
  for (const experiment of registry) {
    if (!own.includes(experiment.id) && !/^x-[a-z0-9-]+$/.test(experiment.id))
      throw new InvalidArgumentError(
        'experiments',
        `an experiment added to the pilot needs an ID x-<name> (lowercase, digits, dashes), found ${JSON.stringify(experiment.id)}`,
      );
  }
  // without --templates: every registered experiment except the opt-in ones
  const optInList = optInIds(builtIns);
  const selected =
    settings.templates === undefined
      ? registry.filter((experiment) => !optInList.includes(experiment.id))
      : selectExperiments(settings.templates, registry);
  refuseOptInUnderSystemMemory(settings, selected, optInList);
  const added: Record<string, unknown> = {};
  const optIn: Record<string, unknown> = {};
  for (const experiment of selected) {
    if (PILOT_EXPERIMENT_IDS.includes(experiment.id)) continue;
    const params = experiment.parametersFrom(settings);
    if (params === null) continue;
    if (keyedIds.includes(experiment.id)) optIn[experiment.id] = params;
    else added[experiment.id] = params;
  }
  // the default run's experiments under their keys, null when left out (in registry order)
  const defaults = Object.fromEntries(
    PILOT_EXPERIMENTS.map((experiment) => [
      experiment.id,
      parametersIfSelected(experiment, selected, settings),
    ]),
  );
  const experiments = {
    ...defaults,
    ...optIn,
    ...(Object.keys(added).length === 0 ? {} : { added }),
  } as RunManifest['experiments'];
  if (
    Object.values(defaults).every((params) => params === null) &&
    experiments.added === undefined &&
    Object.keys(optIn).length === 0
  )
    throw new InvalidArgumentError(
      settings.templates === undefined ? 'experiments' : 'templates',
      'expected at least one experiment, found none',
    );
  return experiments;
}

/** The hash of the plan, for `manifest.planSha256`. */
export function planSha256(plan: RunPlan): string {
  return sha256Hex(canonicalJson(plan));
}

/** Builds the manifest of a run (not yet frozen). */
export function buildManifest(args: {
  settings: PilotSettings;
  worldSeeds: readonly number[];
  prompts: readonly PromptRef[];
  generators: readonly GeneratorInfo[];
  createdAt: Date;
  /** The experiments this run may include (default: the pilot's registry). */
  experiments?: readonly AnyExperiment[];
  /**
   * The built-in experiments' registry (default `BUILT_IN_EXPERIMENTS` of `@chi/experiments`):
   * their IDs are keys of `manifest.experiments`, the others need `x-<name>`.
   */
  builtIns?: readonly BuiltInExperiment[];
}): RunManifest {
  const { settings } = args;
  const registry = args.experiments ?? REGISTERED_EXPERIMENTS;
  const builtIns = args.builtIns ?? BUILT_IN_EXPERIMENTS;
  const experiments = manifestExperiments(settings, registry, builtIns);
  const keyedIds = keyedExperimentIds(builtIns);
  // feature schemas of the experiments beyond the default three: opt-in ones, then added ones
  const keyed = experiments as Readonly<Record<string, unknown>>;
  const added = registry.filter(
    (experiment) =>
      (keyedIds.includes(experiment.id) && keyed[experiment.id] !== undefined) ||
      experiments.added?.[experiment.id] !== undefined,
  );
  const classes = new Set(settings.systems.map((system) => system.evidenceClass));
  // the run's class: live when any system is a declared live model; an undeclared endpoint is
  // never promoted to one, nor hidden as a scripted baseline
  const runClass = classes.has('live_model')
    ? 'live_model'
    : classes.has('unverified_endpoint')
      ? 'unverified_endpoint'
      : 'scripted_baseline';
  const manifest: RunManifest = {
    kind: 'run-manifest',
    schemaVersion: 1,
    protocol: experiments.divergence === undefined ? PROTOCOL_ID : DIVERGENCE_PROTOCOL_ID,
    createdAt: args.createdAt.toISOString(),
    evidenceClass: runClass,
    systems: settings.systems.map((system) => ({ ...system })),
    replicates: settings.replicates,
    worldSeeds: [...args.worldSeeds],
    experiments,
    notebookCapBytes: settings.notebookCapBytes,
    ceilingUsd: settings.ceilingUsd,
    deadlineMs: settings.deadlineMs,
    maxOutputTokens: settings.maxOutputTokens,
    concurrency: settings.concurrency,
    retry: { maxRetries: settings.maxRetries, retryAfterCapMs: settings.retryAfterCapMs },
    reservationMargin: settings.reservationMargin,
    prompts: [...args.prompts],
    generators: [...args.generators],
    analysis: {
      seed: settings.analysisSeed,
      resamples: settings.resamples,
      level: settings.level,
      taus: [...settings.taus],
      primaryCheckpoint: settings.primaryCheckpoint,
      ...(settings.compareTo === undefined ? {} : { compareTo: settings.compareTo }),
    },
    failureRules: [...FAILURE_RULES],
    requireSmoke: settings.requireSmoke,
    ...(settings.configuration === undefined ? {} : { configuration: settings.configuration }),
    // null without --calibration: no human reference, so h and CHI are null throughout
    calibrationId: settings.calibration?.id ?? null,
    policies: { ...RUN_POLICIES },
    featureSchemas: [
      ...FEATURE_SCHEMAS.map((schema) => ({ ...schema, features: [...schema.features] })),
      ...featureSchemasOf(added),
    ],
    ...(settings.calibration == null
      ? {}
      : { chiComparison: chiComparisonFor(settings.calibration) }),
    ...(settings.study === undefined ? {} : { study: settings.study }),
  };
  return parseWith(RunManifestSchema, manifest, 'run manifest');
}

/** A manifest in its frozen form: the RFC 8785 text (the file's bytes) and its SHA-256. */
export interface FrozenManifest {
  readonly manifest: RunManifest;
  readonly text: string;
  readonly sha256: string;
}

/** Freezes a manifest: validates it, serializes it canonically and hashes the bytes. */
export function freezeManifest(manifest: RunManifest): FrozenManifest {
  const parsed = parseWith(RunManifestSchema, manifest, 'run manifest');
  const text = canonicalJson(parsed);
  return { manifest: parsed, text, sha256: sha256Hex(text) };
}

/** The run folder's manifest does not match its recorded hash (it was edited after freezing). */
export class ManifestIntegrityError extends ChiError {
  constructor(message: string) {
    super(message);
    this.name = 'ManifestIntegrityError';
  }

  /** True for this error from any copy of the package (the `ChiError` marker plus the name). */
  static override isInstance(error: unknown): error is ManifestIntegrityError {
    return ChiError.isInstance(error) && error.name === 'ManifestIntegrityError';
  }
}

/**
 * Reads `manifest.json` of a run folder and checks it against `manifest.sha256`: the file bytes
 * must hash to the recorded value and be the canonical form of a valid manifest.
 */
export async function readFrozenManifest(runDir: string): Promise<FrozenManifest> {
  const text = await readRunFileText(join(runDir, RUN_FILE_NAME.manifest));
  const recorded =
    (await readRunFileText(join(runDir, RUN_FILE_NAME.manifestSha256))).trim().split(/\s+/)[0] ??
    '';
  const sha256 = sha256Hex(text);
  if (sha256 !== recorded) {
    throw new ManifestIntegrityError(
      `${RUN_FILE_NAME.manifest} in ${runDir} hashes to ${sha256}, but ${RUN_FILE_NAME.manifestSha256} records ${recorded}: the frozen manifest was changed`,
    );
  }
  const manifest = parseWith(RunManifestSchema, JSON.parse(text) as unknown, 'run manifest');
  if (canonicalJson(manifest) !== text) {
    throw new ManifestIntegrityError(
      `${RUN_FILE_NAME.manifest} in ${runDir} is not in canonical (RFC 8785) form`,
    );
  }
  return { manifest, text, sha256 };
}
