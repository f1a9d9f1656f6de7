import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import {
  type PilotConfig,
  PilotConfigSchema,
  type PilotOptions,
  PilotOptionsSchema,
  type RunConfiguration,
} from '@chi/spec';
import { PILOT_EXPERIMENT_FLAGS, type PilotCommand, UsageError } from './cli-args';
import { experimentFlagArgs } from './experiment-flags';
import { REGISTERED_EXPERIMENTS } from './experiments/registry';
import type { PilotSettings } from './settings';

/** A configuration file read and validated. */
export interface LoadedPilotConfig {
  /** Absolute path of the file. */
  readonly path: string;
  /** SHA-256 of the file's bytes, frozen in the manifest. */
  readonly sha256: string;
  readonly config: PilotConfig;
}

/**
 * Reads a `chi pilot --config` file: JSON validated against `PilotConfigSchema` (published as
 * `@chi/spec/schemas/pilot-config.schema.json`). Throws a {@link UsageError} naming the file and
 * every field that is wrong.
 */
export function readPilotConfigFile(path: string): LoadedPilotConfig {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      `--config: cannot read ${path} (${code === 'ENOENT' ? 'no such file' : (code ?? (error as Error).message)}); \`chi init\` writes a starter file`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new UsageError(
      `--config: ${path} is not valid JSON (${(error as Error).message}); comments belong in "$comment"`,
    );
  }
  const parsed = PilotConfigSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const field = issue.path.length === 0 ? '(top level)' : issue.path.join('.');
      return `${field}: ${issue.message}`;
    });
    throw new UsageError(`--config: ${path}: ${problems.join('; ')}`);
  }
  // the opt-in environments are registered too: a file may name them, as --templates may
  const registered = REGISTERED_EXPERIMENTS.map((experiment) => experiment.id);
  const unknown = parsed.data.templates?.find((id) => !registered.includes(id));
  if (unknown !== undefined)
    throw new UsageError(
      `--config: ${path}: templates: unknown template ${JSON.stringify(unknown)}; registered: ${registered.join(', ')} (chi templates lists them)`,
    );
  return {
    path,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    config: parsed.data,
  };
}

/** Flags that choose the roster; given on the command line, they replace the file's roster. */
const ROSTER_FLAGS = ['--systems', '--live', '--models', '--base-url'];
const ROSTER_FIELDS = ['systems', 'live', 'models', 'baseUrl'] as const;

/** The models a command line gives a `--price` for (`--price M=...` or `--price=M=...`). */
function pricedOnCommandLine(argv: readonly string[]): Set<string> {
  const models = new Set<string>();
  argv.forEach((token, index) => {
    const value = token.startsWith('--price=')
      ? token.slice('--price='.length)
      : token === '--price'
        ? argv[index + 1]
        : undefined;
    const at = value?.lastIndexOf('=') ?? -1;
    if (value !== undefined && at > 0) models.add(value.slice(0, at).trim());
  });
  return models;
}

function givesFlag(argv: readonly string[], flag: string): boolean {
  return argv.some((token) => token === flag || token.startsWith(`${flag}=`));
}

/**
 * The `chi pilot` flags a configuration stands for, to be placed BEFORE the command line's own
 * flags: a flag given on the command line then wins, because the last occurrence of an option
 * wins. A roster flag on the command line (`--systems`, `--live`, `--models`, `--base-url`)
 * replaces the file's whole roster, so the two never combine into a conflict. `out` is resolved
 * relative to the file's folder.
 */
export function pilotConfigArgs(
  loaded: LoadedPilotConfig,
  commandLine: readonly string[],
): string[] {
  const config: PilotOptions = { ...loaded.config };
  if (ROSTER_FLAGS.some((flag) => givesFlag(commandLine, flag)))
    for (const field of ROSTER_FIELDS) delete config[field];
  const args: string[] = [];
  const option = (flag: string, value: string) => args.push(`--${flag}=${value}`);
  if (config.systems !== undefined) option('systems', config.systems.join(','));
  if (config.live === true) args.push('--live');
  if (config.models !== undefined) option('models', config.models.join(','));
  if (config.baseUrl !== undefined) option('base-url', config.baseUrl);
  if (config.replicates !== undefined) option('replicates', String(config.replicates));
  // The experiments' own options, named by their parameter schemas (--loads ... --no-behavior).
  args.push(...experimentFlagArgs(PILOT_EXPERIMENT_FLAGS, config));
  if (config.templates !== undefined) option('templates', config.templates.join(','));
  if (config.ceilingUsd !== undefined) option('ceiling-usd', String(config.ceilingUsd));
  if (config.smokeCeilingUsd !== undefined)
    option('smoke-ceiling-usd', String(config.smokeCeilingUsd));
  if (config.allowFailedSmoke === true) args.push('--allow-failed-smoke');
  if (config.concurrency !== undefined) option('concurrency', String(config.concurrency));
  if (config.out !== undefined) option('out', resolve(dirname(loaded.path), config.out));
  if (config.seed !== undefined) option('seed', String(config.seed));
  if (config.resamples !== undefined) option('resamples', String(config.resamples));
  if (config.release === false) args.push('--no-release');
  if (config.calibration !== undefined)
    option('calibration', resolve(dirname(loaded.path), config.calibration));
  // A model the command line prices is priced by the command line only (one price per model).
  const flagged = pricedOnCommandLine(commandLine);
  for (const [model, price] of Object.entries(config.prices ?? {}))
    if (!flagged.has(model))
      option(
        'price',
        `${model}=${price.inputUsdPerMillionTokens},${price.outputUsdPerMillionTokens},${price.requestUsd ?? 0}`,
      );
  if (config.acceptUnboundedSpend === true) args.push('--accept-unbounded-spend');
  return args;
}

/**
 * The options the experiments' own flags set (`goalSteps`, `valenceChoices`), as the
 * configuration records them: only those given, and only the fields the configuration schema
 * knows (an experiment added per run has none there).
 */
function experimentOptionsOf(command: PilotCommand): Partial<PilotOptions> {
  const known = Object.keys(PilotOptionsSchema.shape);
  return Object.fromEntries(
    Object.entries(command.experimentOptions ?? {}).filter(
      ([option, value]) => value !== null && known.includes(option),
    ),
  ) as Partial<PilotOptions>;
}

/**
 * The resolved configuration of a new run, as frozen in its manifest: every option with the
 * value the run uses (defaults filled in from the settings), without `out`.
 */
export function runConfigurationOf(
  command: PilotCommand,
  settings: PilotSettings,
  configFileSha256: string | null,
): RunConfiguration {
  const scripted = settings.systems.every((system) => system.kind === 'scripted');
  const roster: PilotOptions = scripted
    ? { systems: settings.systems.map((system) => system.id) }
    : {
        ...(command.baseUrl === null ? { live: true } : { baseUrl: command.baseUrl }),
        models: settings.systems.map((system) =>
          system.providers.length === 0
            ? system.model
            : `${system.model}@${system.providers.join('+')}`,
        ),
      };
  return {
    configFileSha256,
    options: {
      ...roster,
      replicates: settings.replicates,
      // --templates without memory plans no load; the options then record none (the schema
      // asks for at least one load when there are loads)
      ...(settings.loads.length === 0 ? {} : { loads: [...settings.loads] }),
      batchSize: settings.batchSize,
      controls: command.controls,
      ...(command.transcriptReplay ? { transcriptReplay: true } : {}),
      ...(command.probeWordings ? { probeWordings: true } : {}),
      ...experimentOptionsOf(command),
      history: settings.history,
      behavior: settings.behavior,
      ...(command.templates === null ? {} : { templates: [...command.templates] }),
      ceilingUsd: settings.ceilingUsd,
      smokeCeilingUsd: command.smokeCeilingUsd,
      allowFailedSmoke: command.allowFailedSmoke,
      concurrency: settings.concurrency,
      seed: settings.rootSeed,
      resamples: settings.resamples,
      release: command.release,
      ...(command.acceptUnboundedSpend ? { acceptUnboundedSpend: true } : {}),
    },
  };
}
