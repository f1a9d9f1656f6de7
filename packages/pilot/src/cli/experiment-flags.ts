import { type ParameterFlag, parameterFlags } from '@chi/experiment';
import { ChiError } from '@chi/spec';
import type { AnyExperiment } from '../experiments/experiment';

/** A value an experiment flag sets: a number, a list of numbers, or a switch. */
export type ExperimentFlagValue = number | readonly number[] | boolean | null;

/** One experiment flag with the experiment that declares it. */
export interface ExperimentFlag extends ParameterFlag {
  /** The experiment whose parameter schema declares the flag. */
  readonly experimentId: string;
}

/**
 * The command-line flags the experiments declare on their parameter schemas, in registry order
 * (see `ParameterFlag` in `@chi/run`). Throws when two experiments declare the same flag or set
 * the same option.
 */
export function experimentFlags(experiments: readonly AnyExperiment[]): ExperimentFlag[] {
  const flags = experiments.flatMap((experiment) =>
    parameterFlags(experiment.parameters).map((flag) => ({
      ...flag,
      experimentId: experiment.id,
    })),
  );
  for (const [index, flag] of flags.entries()) {
    const twin = flags
      .slice(0, index)
      .find((other) => other.flag === flag.flag || other.option === flag.option);
    if (twin !== undefined)
      throw new ChiError(
        `experiments ${twin.experimentId} and ${flag.experimentId} both declare --${flag.flag} or the option ${flag.option}`,
      );
  }
  return flags;
}

function rangeText(flag: ParameterFlag): string {
  return flag.range === undefined ? '' : `${flag.range.min}-${flag.range.max}`;
}

/** An integer in the flag's range; `problem` names the flag, what was expected and what was found. */
function integerValue(flag: ParameterFlag, text: string, problem: (message: string) => Error) {
  const { min, max } = flag.range ?? { min: 0, max: Number.MAX_SAFE_INTEGER };
  if (!/^[0-9]+$/.test(text) || Number(text) < min || Number(text) > max)
    throw problem(
      `--${flag.flag}: expected an integer in ${rangeText(flag)}, found ${JSON.stringify(text)}`,
    );
  return Number(text);
}

function integerListValue(
  flag: ParameterFlag,
  text: string,
  problem: (message: string) => Error,
): number[] {
  const preset = flag.presets?.[text];
  if (preset !== undefined) return [...preset];
  const items = text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  if (items.length === 0)
    throw problem(
      `--${flag.flag}: expected a comma-separated list like ${flag.example ?? '1,2'}, found nothing`,
    );
  return items.map((item) => integerValue(flag, item, problem));
}

/**
 * The options the flags set, by option name, from `parseArgs` values: an absent `integer` or
 * `integer-list` flag is null, an absent negation true, an absent switch false. A bad value
 * throws `problem(message)` with a message naming the flag.
 */
export function parseExperimentFlags(
  flags: readonly ParameterFlag[],
  values: Readonly<Record<string, unknown>>,
  problem: (message: string) => Error,
): Record<string, ExperimentFlagValue> {
  const options: Record<string, ExperimentFlagValue> = {};
  for (const flag of flags) {
    const value = values[flag.flag];
    if (flag.kind === 'negation') options[flag.option] = value !== true;
    else if (flag.kind === 'switch') options[flag.option] = value === true;
    else if (typeof value !== 'string') options[flag.option] = null;
    else if (flag.kind === 'integer') options[flag.option] = integerValue(flag, value, problem);
    else options[flag.option] = integerListValue(flag, value, problem);
  }
  return options;
}

/**
 * The command-line arguments that stand for the options a configuration file sets for these
 * flags (`loads: [32, 64]` is `--loads=32,64`, `controls: false` is `--no-controls`,
 * `transcriptReplay: true` is `--transcript-replay`).
 */
export function experimentFlagArgs(
  flags: readonly ParameterFlag[],
  options: Readonly<Record<string, unknown>>,
): string[] {
  const args: string[] = [];
  for (const flag of flags) {
    const value = options[flag.option];
    if (flag.kind === 'negation') {
      if (value === false) args.push(`--${flag.flag}`);
    } else if (flag.kind === 'switch') {
      if (value === true) args.push(`--${flag.flag}`);
    } else if (Array.isArray(value)) args.push(`--${flag.flag}=${value.join(',')}`);
    else if (typeof value === 'number' || typeof value === 'string')
      args.push(`--${flag.flag}=${value}`);
  }
  return args;
}

/** The accepted range of an experiment flag as `min-max`, or null for a flag without one. */
export function experimentFlagRange(flags: readonly ParameterFlag[], name: string): string | null {
  const flag = flags.find((candidate) => candidate.flag === name);
  return flag?.range === undefined ? null : rangeText(flag);
}
