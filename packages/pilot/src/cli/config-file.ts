import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { ParameterFlag } from '@chi/experiment';
import { type PilotConfig, PilotConfigSchema, type RunConfiguration } from '@chi/spec';
import { type PilotOptions, PilotOptionsSchema } from '@chi/spec/internal';
import { z } from 'zod';
import { REGISTERED_EXPERIMENTS } from '../experiments/registry';
import type { PilotSettings } from '../pilot-settings';
import { PILOT_EXPERIMENT_FLAGS, type PilotCommand } from './cli-args';
import { FLAG_TABLES } from './cli-help';
import { suggestionText } from './did-you-mean';
import { experimentFlagArgs } from './experiment-flags';
import { UsageError } from './usage-error';

/** A configuration file read and validated. */
export interface LoadedPilotConfig {
  /** Absolute path of the file. */
  readonly path: string;
  /** SHA-256 of the file's bytes, frozen in the manifest. */
  readonly sha256: string;
  readonly config: PilotConfig;
}

/** A configuration key's path as JSON reads it: `systems[1]`, `prices.m.requestUsd`. */
function keyPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (text, key) =>
      typeof key === 'number'
        ? `${text}[${key}]`
        : text === ''
          ? String(key)
          : `${text}.${String(key)}`,
    '',
  );
}

/** The value a configuration-file field of an experiment flag takes (its `ParameterFlag` kind). */
function flagFieldSchema(flag: ParameterFlag): z.ZodType {
  const { min, max } = flag.range ?? { min: 0, max: Number.MAX_SAFE_INTEGER };
  if (flag.kind === 'integer') return z.int().min(min).max(max).optional();
  if (flag.kind === 'integer-list') return z.array(z.int().min(min).max(max)).min(1).optional();
  return z.boolean().optional();
}

/**
 * `PilotConfigSchema` with a field for every experiment flag of `flags` it does not name: a
 * built-in experiment's option is set from a file by the flag its module declares, with no line
 * in `@chi/spec` (the published schema names the fields of the pilot's and the opt-in
 * environments' flags, for editor completion). Such an option reaches the run through the
 * module's parameters (`manifest.experiments[id]`); `configuration.options` records only the
 * fields the published schema names.
 */
export function pilotConfigSchema(flags: readonly ParameterFlag[]) {
  const named = PilotConfigSchema.shape;
  return PilotConfigSchema.extend(
    Object.fromEntries(
      flags
        .filter((flag) => !Object.hasOwn(named, flag.option))
        .map((flag) => [flag.option, flagFieldSchema(flag)]),
    ),
  );
}

/** The configuration-file schema of the registered experiments' flags. */
const CONFIG_SCHEMA = pilotConfigSchema(PILOT_EXPERIMENT_FLAGS);

/** The keys a configuration file may set at the top level. */
const CONFIG_KEYS: readonly string[] = Object.keys(CONFIG_SCHEMA.shape);

/** One schema problem as `key: message`; an unknown key with the closest known key. */
function configProblems(issue: z.core.$ZodIssue): string[] {
  const where = keyPath(issue.path);
  if (issue.code === 'unrecognized_keys')
    return issue.keys.map((key) => {
      const known = issue.path.length === 0 ? CONFIG_KEYS : [];
      const full = where === '' ? key : `${where}.${key}`;
      return `${full}: unknown key${suggestionText(key, known)}`;
    });
  return [`${where === '' ? '(top level)' : where}: ${issue.message}`];
}

/**
 * Reads a `chi pilot --config` file: JSON validated against `PilotConfigSchema` (published as
 * `@chi/spec/schemas/pilot-config.schema.json`). Throws a {@link UsageError} naming the file (as
 * `shownAs`, the path the user typed) and every key that is wrong (`chi.config.json:
 * systems[1]: ...`), with the closest known key for an unknown one.
 */
export function readPilotConfigFile(path: string, shownAs: string = path): LoadedPilotConfig {
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
      `${shownAs}: not valid JSON (${(error as Error).message}); comments belong in "$comment"`,
    );
  }
  const parsed = CONFIG_SCHEMA.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.flatMap(configProblems);
    throw new UsageError(`${shownAs}: ${problems.join('; ')}`);
  }
  // the schema's fields, plus the registered flags' options (read by `experimentFlagArgs`)
  const config = parsed.data as PilotConfig;
  // the opt-in environments are registered too: a file may name them, as --templates may
  const registered = REGISTERED_EXPERIMENTS.map((experiment) => experiment.id);
  const unknown = config.templates?.find((id) => !registered.includes(id));
  if (unknown !== undefined)
    throw new UsageError(
      `${shownAs}: templates: unknown template ${JSON.stringify(unknown)}${suggestionText(unknown, registered)}; registered: ${registered.join(', ')} (chi templates lists them)`,
    );
  return {
    path,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    config,
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
  if (config.protocol !== undefined) option('protocol', config.protocol);
  if (config.systems !== undefined) option('systems', config.systems.join(','));
  if (config.live === true) args.push('--live');
  if (config.models !== undefined) option('models', config.models.join(','));
  if (config.baseUrl !== undefined) option('base-url', config.baseUrl);
  if (config.memory !== undefined) option('memory', config.memory);
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

/** The option names (without dashes) an argument list gives: `--seed=7` and `--live` give seed, live. */
function flagNames(args: readonly string[]): Set<string> {
  return new Set(
    args.filter((arg) => arg.startsWith('--')).map((arg) => arg.slice(2).split('=')[0] as string),
  );
}

/**
 * Rewords a message about a flag that the configuration file set (not one the user typed) to
 * name the file and its key instead: `--replicates: expected ...` becomes `chi.config.json:
 * replicates: expected ...`, and `--goal-steps` elsewhere in a message `goalSteps
 * (chi.config.json)`. A flag the command line gives is left as it is (the command line won).
 */
export function configErrorWording(
  loaded: LoadedPilotConfig,
  shownAs: string,
  commandLine: readonly string[],
): (message: string) => string {
  const typed = flagNames(commandLine);
  const fromFile = [...flagNames(pilotConfigArgs(loaded, commandLine))].filter(
    (name) => !typed.has(name),
  );
  const keys = new Map(
    FLAG_TABLES.pilot.flatMap((flag) =>
      flag.configKey !== undefined && fromFile.includes(flag.name)
        ? [[flag.name, flag.configKey] as const]
        : [],
    ),
  );
  return (message) => {
    let text = message;
    for (const [flag, key] of keys) {
      const leading = new RegExp(`^(chi pilot: )?--${flag}: `);
      if (leading.test(text)) text = text.replace(leading, `${shownAs}: ${key}: `);
      text = text.replace(new RegExp(`--${flag}(?![a-z0-9-])`, 'g'), `${key} (${shownAs})`);
    }
    return text;
  };
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
