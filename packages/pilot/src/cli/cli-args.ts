import { parseArgs } from 'node:util';
import { ChiError, type Price } from '@chi/spec';
import { PILOT_EXPERIMENT_IDS, REGISTERED_EXPERIMENTS } from '../experiments/registry';
import type { MemoryPolicy } from '../memory-systems/instance-identity';
import { MEMORY_REFERENCE_NAMES } from '../memory-systems/reference-systems';
import { parsePriceArgument } from '../plan/declared-prices';
import { EXTRA_SCRIPTED_SYSTEM_NAMES, SCRIPTED_SYSTEM_NAMES } from '../scripted/scripted-systems';
import { shardOptions } from '../shard/shard-args';
import type { ShardSpec } from '../shard/shard-spec';
import { parseStudy, type StudyCommand } from '../study/study-args';
import type { CliFlag } from './cli-flag';
import { divergenceFlags, findFlag, parseArgsOptions } from './cli-flags';
import {
  asksForHelp,
  CLI_COMMANDS,
  type CliCommandName,
  FLAG_TABLES,
  PILOT_EXPERIMENT_FLAGS,
  USAGE,
} from './cli-help';
import { suggestionText } from './did-you-mean';
import {
  type ExperimentFlagValue,
  experimentFlagRange,
  parseExperimentFlags,
} from './experiment-flags';
import { UsageError } from './usage-error';

const REGISTERED_IDS: readonly string[] = REGISTERED_EXPERIMENTS.map((experiment) => experiment.id);

/** A live model named on the command line: `model@provider[+provider...]`. */
export interface ModelArgument {
  readonly model: string;
  readonly providers: readonly string[];
}

/** The evidence classes a user can declare for a `--base-url` endpoint. */
export const DECLARED_ENDPOINT_CLASSES = ['live_model', 'unverified_endpoint'] as const;
/** One declarable endpoint class. */
export type DeclaredEndpointClass = (typeof DECLARED_ENDPOINT_CLASSES)[number];

function evidenceClassOption(
  text: string | undefined,
  baseUrl: string | null,
): DeclaredEndpointClass | null {
  if (text === undefined) return null;
  if (baseUrl === null)
    throw new UsageError(
      'chi pilot: --evidence-class labels a --base-url endpoint; OpenRouter models are live models and scripted systems scripted baselines',
    );
  if (!(DECLARED_ENDPOINT_CLASSES as readonly string[]).includes(text))
    throw new UsageError(
      `--evidence-class: expected one of ${DECLARED_ENDPOINT_CLASSES.join(', ')}, found ${JSON.stringify(text)}`,
    );
  return text as DeclaredEndpointClass;
}

/** `--memory POLICY`: absent from the command when not given (its shape stays as before). */
function memoryPolicyOption(text: string | undefined): { memory?: MemoryPolicy } {
  if (text === undefined) return {};
  if (text !== 'notebook' && text !== 'system')
    throw new UsageError(`--memory: expected notebook or system, found ${JSON.stringify(text)}`);
  return { memory: text };
}

/** `chi pilot` options, parsed and typed. */
export interface PilotCommand {
  readonly command: 'pilot';
  readonly live: boolean;
  readonly plan: boolean;
  /** `--protocol NAME`: a protocol other than the default pilot (absent for the default). */
  readonly protocol?: string;
  readonly resume: string | null;
  readonly systems: readonly string[] | null;
  readonly models: readonly ModelArgument[] | null;
  readonly baseUrl: string | null;
  /**
   * `--evidence-class CLASS`: what the user declares serves the `--base-url` endpoint
   * (`live_model` or `unverified_endpoint`); null: undeclared, labelled `unverified_endpoint`.
   */
  readonly evidenceClass?: DeclaredEndpointClass | null;
  /** `--memory POLICY`: who holds the memory of every system (null: each system's default). */
  readonly memory?: MemoryPolicy | null;
  readonly replicates: number | null;
  readonly loads: readonly number[] | null;
  readonly batchSize: number | null;
  readonly controls: boolean;
  /** `--transcript-replay`: the memory experiment's transcript-replay baseline (opt-in). */
  readonly transcriptReplay: boolean;
  /** `--probe-wordings`: ask every behavioral item under both declared wordings (opt-in). */
  readonly probeWordings: boolean;
  readonly history: boolean;
  readonly behavior: boolean;
  /** `--templates id,...`: the registered experiments to run; null = every one. */
  readonly templates: readonly string[] | null;
  /**
   * Options set by flags that registered experiments declare beyond the pilot's own five fields
   * (`loads`, `batchSize`, `controls`, `history`, `behavior`), by option name; absent when the
   * registry declares none. Passed on as `PilotSettings.experimentOptions`.
   */
  readonly experimentOptions?: Readonly<Record<string, ExperimentFlagValue>>;
  readonly ceilingUsd: number | null;
  /** `--compare-to SYSTEM`: the reference of the paired comparisons, frozen in the manifest. */
  readonly compareTo?: string;
  /** `--plan-from DIR` of `--plan`: a previous release whose per-world values give the spreads. */
  readonly planFrom?: string;
  /** `--target-half-width X` of `--plan`: the interval half-width the precision table aims at. */
  readonly targetHalfWidth?: number;
  readonly smokeCeilingUsd: number;
  readonly concurrency: number | null;
  readonly out: string | null;
  readonly seed: number | null;
  readonly resamples: number | null;
  readonly release: boolean;
  readonly allowFailedSmoke: boolean;
  /** `--config FILE`: a pilot configuration file whose options the flags override. */
  readonly config: string | null;
  /** A calibration file (`chi calibrate`): h and CHI are computed against it. */
  readonly calibration: string | null;
  /** `--price MODEL=IN,OUT[,REQUEST]` arguments, parsed. */
  readonly prices: readonly { readonly model: string; readonly price: Price }[];
  /** `--prices FILE`: a declared-prices JSON file. */
  readonly pricesFile: string | null;
  /** `--accept-unbounded-spend`: run an endpoint without declared prices (the ceiling cannot bound it). */
  readonly acceptUnboundedSpend: boolean;
  /** `--shard i/n`: run only this shard's part of the plan (docs/protocol.md, "Shards"). */
  readonly shard?: ShardSpec;
  /** `--created-at ISO`: the manifest's creation time (every shard of a run gets the same). */
  readonly createdAt?: Date;
}

/** `chi merge SHARD_DIR... --out DIR`: one run folder and release from a sharded run's folders. */
export interface MergeCommand {
  readonly command: 'merge';
  readonly shardDirs: readonly string[];
  readonly out: string;
}

/** `chi calibrate DATA [--out FILE]`: a frozen calibration from a human-data JSONL file. */
export interface CalibrateCommand {
  readonly command: 'calibrate';
  readonly data: string;
  readonly out: string | null;
}

/** `chi smoke` options. */
export interface SmokeCommand {
  readonly command: 'smoke';
  readonly models: readonly ModelArgument[] | null;
  readonly baseUrl: string | null;
  readonly ceilingUsd: number;
  readonly out: string | null;
}

/** `chi serve` options. */
export interface ServeCommand {
  readonly command: 'serve';
  readonly system: string;
  readonly port: number;
  readonly host: string;
  readonly seed: number | null;
}

/** `chi score DIR`: (re)score a run folder and write its release. */
export interface ScoreCommand {
  readonly command: 'score';
  readonly runDir: string;
  readonly release: boolean;
}

/**
 * `chi view [DIR] [--port P] [--bundle OUT]`: browse a run folder or release;
 * `chi view RUN_A RUN_B [--port P] [--bundle OUT]`: compare two runs, paired by world.
 */
export interface ViewCommand {
  readonly command: 'view';
  /** A run folder or release; `.` when omitted. */
  readonly dir: string;
  /** A second run to compare with `dir` (`chi view RUN_A RUN_B`), or null. */
  readonly compare: string | null;
  readonly port: number;
  /** Write a static copy here instead of serving. */
  readonly bundle: string | null;
}

/** `chi verify RELEASE_DIR` (delegated to `@chi/report`). */
export interface VerifyCommand {
  readonly command: 'verify';
  readonly argv: readonly string[];
}

/** `chi help` / `chi --help` / `chi --version`; `chi <command> --help` sets `topic`. */
export interface HelpCommand {
  readonly command: 'help' | 'version';
  readonly topic?: CliCommandName;
}

/** `chi export inspect RUN_DIR OUT_DIR`: a run as Inspect evaluation logs. */
export interface ExportCommand {
  readonly command: 'export';
  readonly format: 'inspect';
  readonly runDir: string;
  readonly outDir: string;
}

/** `chi templates`: the registered experiments by axis and the 30 slots of the panel. */
export interface TemplatesCommand {
  readonly command: 'templates';
}

/** `chi init [FILE] [--force]`: write a starter pilot configuration file. */
export interface InitCommand {
  readonly command: 'init';
  readonly file: string;
  readonly force: boolean;
}

/** Any parsed command line. */
export type CliCommand =
  | PilotCommand
  | SmokeCommand
  | ServeCommand
  | ScoreCommand
  | VerifyCommand
  | InitCommand
  | ExportCommand
  | CalibrateCommand
  | ViewCommand
  | TemplatesCommand
  | MergeCommand
  | StudyCommand
  | HelpCommand;

export { PILOT_EXPERIMENT_FLAGS, USAGE };

/** The `--price` arguments, parsed; one per model (a second price for a model is ambiguous). */
function priceOptions(
  texts: readonly string[] | undefined,
): { readonly model: string; readonly price: Price }[] {
  const prices = (texts ?? []).map((text) => {
    const parsed = parsePriceArgument(text);
    if ('problem' in parsed) throw new UsageError(`--price: ${parsed.problem}`);
    return parsed;
  });
  const seen = new Set<string>();
  for (const { model } of prices) {
    if (seen.has(model))
      throw new UsageError(
        `--price: ${model} is priced twice; give one --price per model (which one applies would be a guess)`,
      );
    seen.add(model);
  }
  return prices;
}

/** The range a command's flag table declares for a numeric flag. */
function tableRange(command: CliCommandName, name: string): { min: number; max: number } {
  const range = findFlag(FLAG_TABLES[command], name)?.range;
  if (range === undefined) throw new ChiError(`chi ${command}: --${name} declares no range`);
  return range;
}

/**
 * The accepted range of every numeric option (inclusive), from the flag tables (`cli-flags.ts`)
 * that {@link USAGE} is generated from, except
 * the experiments' own (their parameter schemas declare theirs, {@link PILOT_EXPERIMENT_FLAGS}). The
 * upper bounds keep every command fast and its memory bounded (`--replicates` multiplies the
 * worlds `--plan` generates; `--concurrency` the sockets held open).
 */
export const OPTION_RANGES = {
  replicates: tableRange('pilot', 'replicates'),
  concurrency: tableRange('pilot', 'concurrency'),
  seed: tableRange('pilot', 'seed'),
  resamples: tableRange('pilot', 'resamples'),
  port: tableRange('serve', 'port'),
  'ceiling-usd': tableRange('pilot', 'ceiling-usd'),
  'smoke-ceiling-usd': tableRange('pilot', 'smoke-ceiling-usd'),
} as const satisfies Record<string, { min: number; max: number }>;

type RangedOption = keyof typeof OPTION_RANGES;

function rangeText(name: RangedOption): string {
  const { min, max } = OPTION_RANGES[name];
  return `${min}-${max}`;
}

function integerOption(name: RangedOption, text: string | undefined): number | null {
  if (text === undefined) return null;
  const { min, max } = OPTION_RANGES[name];
  if (!/^[0-9]+$/.test(text) || Number(text) < min || Number(text) > max)
    throw new UsageError(
      `--${name}: expected an integer in ${rangeText(name)}, found ${JSON.stringify(text)}`,
    );
  return Number(text);
}

function usdOption(name: RangedOption, text: string | undefined): number | null {
  if (text === undefined) return null;
  if (!/^[0-9]+(\.[0-9]+)?$/.test(text) || Number(text) > OPTION_RANGES[name].max)
    throw new UsageError(
      `--${name}: expected a USD amount in ${rangeText(name)} like 25 or 12.50, found ${JSON.stringify(text)}`,
    );
  return Number(text);
}

/** `--target-half-width X`: a half-width in (0, 1], like 0.1. */
function halfWidthOption(text: string | undefined): number | null {
  if (text === undefined) return null;
  const value = Number(text);
  if (!/^[0-9]*\.?[0-9]+$/.test(text) || !(value > 0 && value <= 1))
    throw new UsageError(
      `--target-half-width: expected a half-width in (0, 1] like 0.1, found ${JSON.stringify(text)}`,
    );
  return value;
}

function listOption(text: string | undefined): string[] | null {
  if (text === undefined) return null;
  const items = text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  return items;
}

/**
 * `--templates id,...`: registered experiment IDs (`chi templates` lists them). An experiment not
 * named is disabled exactly as its `--no-...` flag (memory: no loads) would disable it.
 */
function templatesOption(text: string | undefined): string[] | null {
  const ids = listOption(text);
  if (ids === null) return null;
  if (ids.length === 0)
    throw new UsageError(
      `--templates: expected registered experiment IDs (${REGISTERED_IDS.join(', ')}), found none`,
    );
  const unknown = ids.find((id) => !REGISTERED_IDS.includes(id));
  if (unknown !== undefined)
    throw new UsageError(
      `--templates: unknown template ${JSON.stringify(unknown)}; registered: ${REGISTERED_IDS.join(', ')} (chi templates lists them)`,
    );
  return ids;
}

/** A model as the pilot names it: `model` or `model@provider[+provider...]` (an OpenRouter allowlist). */
export function modelArgument(item: string): ModelArgument {
  const at = item.indexOf('@');
  const model = at < 0 ? item : item.slice(0, at);
  const providers =
    at < 0
      ? []
      : item
          .slice(at + 1)
          .split('+')
          .filter((provider) => provider !== '');
  return { model, providers };
}

function modelsOption(text: string | undefined, needProviders: boolean): ModelArgument[] | null {
  const items = listOption(text);
  if (items === null) return null;
  if (items.length === 0)
    throw new UsageError('--models: expected at least one model, found nothing');
  return items.map((item) => {
    const { model, providers } = modelArgument(item);
    if (model === '')
      throw new UsageError(`--models: expected model@provider, found ${JSON.stringify(item)}`);
    if (needProviders && providers.length === 0) {
      throw new UsageError(
        `--models: ${model} needs a provider allowlist, e.g. ${model}@provider (no fallback to other providers)`,
      );
    }
    return { model, providers };
  });
}

function urlOption(text: string | undefined): string | null {
  if (text === undefined) return null;
  try {
    const url = new URL(text);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw new UsageError(
      `--base-url: expected an http(s) URL like http://127.0.0.1:8000/v1, found ${JSON.stringify(text)}`,
    );
  }
  return text;
}

/**
 * An unknown option, with the closest option of the command's flag table when one is a likely
 * typo (`--replicate`, `--sytems`).
 */
function unknownOption(command: CliCommandName, message: string): UsageError | null {
  const unknown = /^Unknown option '(-{1,2})([^'=]*)'/.exec(message);
  if (unknown === null) return null;
  const [, dashes, name] = unknown as unknown as [string, string, string];
  const names = FLAG_TABLES[command].map((flag: CliFlag) => flag.name);
  const suggestion = suggestionText(name, names).replace(/mean (\S+)\?$/, 'mean --$1?');
  return new UsageError(
    `chi ${command}: unknown option ${dashes}${name}${suggestion === '' ? ` (chi ${command} --help lists the options)` : suggestion}`,
  );
}

/** Parses a command's arguments against its flag table (`FLAG_TABLES`). */
function parse(args: readonly string[], command: CliCommandName) {
  try {
    return parseArgs({
      args: [...args],
      options: parseArgsOptions(FLAG_TABLES[command]),
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    const message = (error as Error).message.split('\n')[0] ?? String(error);
    const unknown = unknownOption(command, message);
    if (unknown !== null) throw unknown;
    // parseArgs takes `--replicates -1` for a missing value followed by an option.
    const ambiguous = /^Option '--([a-z-]+)[^']*' argument is ambiguous/.exec(message);
    if (ambiguous !== null) {
      const name = ambiguous[1] as string;
      const ranged =
        name in OPTION_RANGES
          ? rangeText(name as RangedOption)
          : experimentFlagRange(PILOT_EXPERIMENT_FLAGS, name);
      const range = ranged === null ? '' : ` in ${ranged}`;
      throw new UsageError(
        `chi ${command}: --${name}: expected a value${range}, found an argument starting with "-" (negative numbers are out of range)`,
      );
    }
    throw new UsageError(
      `chi ${command}: ${message.replace(/\. To specify a positional argument.*$/, '')}`,
    );
  }
}

/**
 * Parses a `chi` command line (without `node` and the script path). Throws {@link UsageError}
 * with a one-line message for anything it cannot accept.
 *
 * @example
 * ```ts
 * parseCli(['pilot', '--replicates', '2']).command; // 'pilot'
 * ```
 */
export function parseCli(argv: readonly string[]): CliCommand {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h')
    return { command: 'help' };
  if (command === '--version' || command === 'version') return { command: 'version' };
  if ((CLI_COMMANDS as readonly string[]).includes(command) && asksForHelp(rest))
    return { command: 'help', topic: command as CliCommandName };
  switch (command) {
    case 'pilot':
      return parsePilot(rest);
    case 'smoke': {
      const { values, positionals } = parse(rest, 'smoke');
      if (positionals.length > 0)
        throw new UsageError(`chi smoke: unexpected argument ${JSON.stringify(positionals[0])}`);
      const baseUrl = urlOption(values['base-url'] as string | undefined);
      return {
        command: 'smoke',
        models: modelsOption(values.models as string | undefined, baseUrl === null),
        baseUrl,
        ceilingUsd: usdOption('ceiling-usd', values['ceiling-usd'] as string | undefined) ?? 1,
        out: (values.out as string | undefined) ?? null,
      };
    }
    case 'serve': {
      const { values, positionals } = parse(rest, 'serve');
      if (positionals.length > 0)
        throw new UsageError(`chi serve: unexpected argument ${JSON.stringify(positionals[0])}`);
      const system = serveSystemOption(values.system as string | undefined);
      const host = serveHostOption(values.host as string | undefined);
      const port = integerOption('port', values.port as string | undefined) ?? 0;
      return {
        command: 'serve',
        system,
        port,
        host,
        seed: integerOption('seed', values.seed as string | undefined),
      };
    }
    case 'score': {
      const { values, positionals } = parse(rest, 'score');
      if (positionals.length !== 1)
        throw new UsageError(`chi score: expected one run folder, found ${positionals.length}`);
      return {
        command: 'score',
        runDir: positionals[0] as string,
        release: values['no-release'] !== true,
      };
    }
    case 'verify':
      return { command: 'verify', argv: rest };
    case 'study':
      return parseStudy(rest);
    case 'merge': {
      const { values, positionals } = parse(rest, 'merge');
      if (positionals.length === 0 || values.out === undefined)
        throw new UsageError('chi merge: expected SHARD_DIR... --out DIR');
      return { command: 'merge', shardDirs: positionals, out: values.out as string };
    }
    case 'export': {
      const { positionals } = parse(rest, 'export');
      if (positionals[0] !== 'inspect' || positionals.length !== 3)
        throw new UsageError(
          `chi export: expected "inspect RUN_DIR OUT_DIR", found ${JSON.stringify(positionals.join(' '))}`,
        );
      return {
        command: 'export',
        format: 'inspect',
        runDir: positionals[1] as string,
        outDir: positionals[2] as string,
      };
    }
    case 'calibrate': {
      const { values, positionals } = parse(rest, 'calibrate');
      if (positionals.length !== 1)
        throw new UsageError(
          `chi calibrate: expected one human-data file, found ${positionals.length}`,
        );
      return {
        command: 'calibrate',
        data: positionals[0] as string,
        out: (values.out as string | undefined) ?? null,
      };
    }
    case 'init': {
      const { values, positionals } = parse(rest, 'init');
      if (positionals.length > 1)
        throw new UsageError(`chi init: expected at most one file, found ${positionals.length}`);
      return {
        command: 'init',
        file: positionals[0] ?? 'chi.config.json',
        force: values.force === true,
      };
    }
    case 'templates': {
      const { positionals } = parse(rest, 'templates');
      if (positionals.length > 0)
        throw new UsageError(
          `chi templates: unexpected argument ${JSON.stringify(positionals[0])}`,
        );
      return { command: 'templates' };
    }
    case 'view': {
      const { values, positionals } = parse(rest, 'view');
      if (positionals.length > 2)
        throw new UsageError(
          `chi view: expected one DIR, or two runs to compare, found ${positionals.length} arguments`,
        );
      const port = integerOption('port', values.port as string | undefined) ?? 0;
      return {
        command: 'view',
        dir: positionals[0] ?? '.',
        compare: positionals[1] ?? null,
        port,
        bundle: (values.bundle as string | undefined) ?? null,
      };
    }
    default:
      throw new UsageError(
        `chi: unknown command ${JSON.stringify(command)}${suggestionText(command, CLI_COMMANDS)}; expected ${CLI_COMMANDS.join(', ')} or help`,
      );
  }
}

/** The scripted systems `chi serve` can serve. */
const SERVABLE_SYSTEMS: readonly string[] = [
  ...SCRIPTED_SYSTEM_NAMES,
  ...EXTRA_SCRIPTED_SYSTEM_NAMES,
  ...MEMORY_REFERENCE_NAMES,
];

/** `chi serve --system NAME`: required, one of the scripted systems (its own message, never a port error). */
function serveSystemOption(text: string | undefined): string {
  if (text === undefined)
    throw new UsageError(
      `chi serve: --system NAME is required (${SCRIPTED_SYSTEM_NAMES.join(', ')})`,
    );
  if (!SERVABLE_SYSTEMS.includes(text))
    throw new UsageError(
      `chi serve: --system: unknown scripted system ${JSON.stringify(text)}${suggestionText(text, SERVABLE_SYSTEMS)}; expected ${SERVABLE_SYSTEMS.join(', ')}`,
    );
  return text;
}

/** `chi serve --host H`: a loopback address only (default 127.0.0.1). */
function serveHostOption(text: string | undefined): string {
  const host = text ?? '127.0.0.1';
  if (host !== '127.0.0.1' && host !== 'localhost' && host !== '::1')
    throw new UsageError(
      `chi serve: --host must be a loopback address (127.0.0.1, ::1, localhost), found ${JSON.stringify(host)}`,
    );
  return host;
}

/**
 * The `chi pilot` options a protocol other than the default pilot takes: the flags whose table
 * row has a `divergence` field (cli-flags.ts), which the help's table of them is made from too.
 */
const PROTOCOL_OPTIONS: readonly string[] = divergenceFlags(FLAG_TABLES.pilot).map(
  (flag) => flag.name,
);

/** The pilot command's own fields among the experiment options; the rest are passed on as a record. */
const COMMAND_FIELDS: readonly string[] = [
  'loads',
  'batchSize',
  'controls',
  'history',
  'behavior',
  'transcriptReplay',
  'probeWordings',
];

/**
 * The options the experiments' flags set beyond the command's own fields, only those given (an
 * absent flag's null is left out).
 */
function extraExperimentOptions(
  options: Readonly<Record<string, ExperimentFlagValue>>,
): Pick<PilotCommand, 'experimentOptions'> {
  const extra = Object.entries(options).filter(
    ([option, value]) => !COMMAND_FIELDS.includes(option) && value !== null,
  );
  return extra.length === 0 ? {} : { experimentOptions: Object.fromEntries(extra) };
}

/**
 * Refuses an experiment option (`--goal-steps`, a configuration file's `goalSteps`) of an
 * experiment the run leaves out: it would change nothing. Checked on the command after the
 * configuration file is merged, so a file's `templates` counts.
 */
export function checkExperimentOptions(command: PilotCommand): void {
  const included = (id: string) =>
    command.templates === null ? PILOT_EXPERIMENT_IDS.includes(id) : command.templates.includes(id);
  for (const option of Object.keys(command.experimentOptions ?? {})) {
    const flag = PILOT_EXPERIMENT_FLAGS.find((candidate) => candidate.option === option);
    if (flag !== undefined && !included(flag.experimentId))
      throw new UsageError(
        `chi pilot: --${flag.flag} sets the ${flag.experimentId} experiment, which the run leaves out (name it in --templates)`,
      );
  }
}

function parsePilot(args: readonly string[]): PilotCommand {
  const { values, positionals } = parse(args, 'pilot');
  if (positionals.length > 0)
    throw new UsageError(`chi pilot: unexpected argument ${JSON.stringify(positionals[0])}`);
  const baseUrl = urlOption(values['base-url'] as string | undefined);
  const live = values.live === true;
  const models = modelsOption(values.models as string | undefined, baseUrl === null);
  const systems = listOption(values.systems as string | undefined);
  const resume = (values.resume as string | undefined) ?? null;
  if (systems !== null && (live || models !== null || baseUrl !== null)) {
    throw new UsageError(
      'chi pilot: --systems (scripted) cannot be combined with --live, --models or --base-url',
    );
  }
  if (baseUrl !== null && models === null)
    throw new UsageError("chi pilot: --base-url needs --models naming the endpoint's model(s)");
  if (live && baseUrl !== null)
    throw new UsageError(
      'chi pilot: --live uses OpenRouter; use --base-url without --live for another endpoint',
    );
  if (resume !== null) {
    const conflicting = Object.keys(values).filter(
      (key) => !['resume', 'no-release', 'concurrency', 'allow-failed-smoke'].includes(key),
    );
    if (conflicting.length > 0) {
      throw new UsageError(
        `chi pilot --resume: the run's manifest is frozen; remove --${conflicting[0]} (only --concurrency and --no-release apply)`,
      );
    }
  }
  if (values.plan === true && resume !== null)
    throw new UsageError('chi pilot: --plan and --resume cannot be combined');
  const protocol = values.protocol as string | undefined;
  if (protocol !== undefined) {
    const conflicting = Object.keys(values).find((key) => !PROTOCOL_OPTIONS.includes(key));
    if (conflicting !== undefined)
      throw new UsageError(
        `chi pilot --protocol: only ${PROTOCOL_OPTIONS.filter((key) => key !== 'protocol')
          .map((key) => `--${key}`)
          .join(', ')} apply; remove --${conflicting}`,
      );
  }
  if (
    !live &&
    models === null &&
    baseUrl === null &&
    resume === null &&
    (values.price !== undefined || values.prices !== undefined)
  )
    throw new UsageError(
      `--${values.price === undefined ? 'prices' : 'price'}: declared prices apply to live models (--live, --models, --base-url); this run is offline (scripted systems, free): remove it`,
    );
  const templates = templatesOption(values.templates as string | undefined);
  const selected = (id: string) => templates === null || templates.includes(id);
  if (!selected('memory') && values.loads !== undefined)
    throw new UsageError(
      'chi pilot: --loads sets the memory experiment, which --templates leaves out',
    );
  const replicates = integerOption('replicates', values.replicates as string | undefined);
  const targetHalfWidth = halfWidthOption(values['target-half-width'] as string | undefined);
  if (targetHalfWidth !== null && values.plan !== true)
    throw new UsageError('chi pilot: --target-half-width applies to --plan only');
  const planFrom = values['plan-from'] as string | undefined;
  if (planFrom !== undefined && values.plan !== true)
    throw new UsageError('chi pilot: --plan-from applies to --plan only');
  const experiment = parseExperimentFlags(
    PILOT_EXPERIMENT_FLAGS,
    values,
    (message) => new UsageError(message),
  );
  return {
    command: 'pilot',
    live: live || (models !== null && baseUrl === null),
    plan: values.plan === true,
    ...(protocol === undefined ? {} : { protocol }),
    resume,
    systems,
    models,
    baseUrl,
    evidenceClass: evidenceClassOption(values['evidence-class'] as string | undefined, baseUrl),
    ...memoryPolicyOption(values.memory as string | undefined),
    replicates,
    loads: selected('memory') ? (experiment.loads as readonly number[] | null) : [],
    batchSize: experiment.batchSize as number | null,
    controls: experiment.controls === true,
    transcriptReplay: experiment.transcriptReplay === true,
    probeWordings: experiment.probeWordings === true,
    history: experiment.history === true && selected('history'),
    behavior: experiment.behavior === true && selected('behavior'),
    templates,
    ...extraExperimentOptions(experiment),
    ceilingUsd: usdOption('ceiling-usd', values['ceiling-usd'] as string | undefined),
    ...(targetHalfWidth === null ? {} : { targetHalfWidth }),
    ...(planFrom === undefined ? {} : { planFrom }),
    ...(values['compare-to'] === undefined ? {} : { compareTo: values['compare-to'] as string }),
    smokeCeilingUsd:
      usdOption('smoke-ceiling-usd', values['smoke-ceiling-usd'] as string | undefined) ?? 1,
    concurrency: integerOption('concurrency', values.concurrency as string | undefined),
    out: (values.out as string | undefined) ?? null,
    seed: integerOption('seed', values.seed as string | undefined),
    resamples: integerOption('resamples', values.resamples as string | undefined),
    release: values['no-release'] !== true,
    allowFailedSmoke: values['allow-failed-smoke'] === true,
    config: (values.config as string | undefined) ?? null,
    calibration: (values.calibration as string | undefined) ?? null,
    prices: priceOptions(values.price as string[] | undefined),
    pricesFile: (values.prices as string | undefined) ?? null,
    acceptUnboundedSpend: values['accept-unbounded-spend'] === true,
    ...shardOptions(values),
  };
}
