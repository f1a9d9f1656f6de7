import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { parseArgsOptions } from '../cli/cli-flags';
import { UsageError } from '../cli/usage-error';
import { parseShardSpec, type ShardSpec } from '../shard/shard-spec';
import { STUDY_INIT_DEFAULTS, type StudyInitOptions } from './study-file';
import { STUDY_FLAGS } from './study-flags';

/** `chi study init|run|status|report|freeze|merge|add DIR`. */
export type StudyCommand =
  | {
      readonly command: 'study';
      readonly action: 'init';
      readonly dir: string;
      readonly init: StudyInitOptions;
      readonly force: boolean;
    }
  | {
      readonly command: 'study';
      readonly action: 'run';
      readonly dir: string;
      readonly early: boolean;
      /** `--shard i/n`: run only this shard of the session (`chi study merge` joins them). */
      readonly shard?: ShardSpec;
      /** `--concurrency N`: requests in flight (default: the pilot's). */
      readonly concurrency?: number;
    }
  | {
      readonly command: 'study';
      readonly action: 'add';
      readonly dir: string;
      /** `--systems a,b`: the systems the study gains (a cohort from its own day 0). */
      readonly systems: readonly string[];
    }
  | {
      readonly command: 'study';
      readonly action: 'status' | 'report' | 'freeze' | 'merge';
      readonly dir: string;
    };

const ACTIONS = ['init', 'run', 'status', 'report', 'freeze', 'merge', 'add'] as const;

function numberList(flag: string, text: string | undefined, fallback: readonly number[]): number[] {
  if (text === undefined) return [...fallback];
  const values = text.split(',').map((part) => Number(part.trim()));
  if (text.trim() === '' || values.some((value) => !Number.isFinite(value)))
    throw new UsageError(
      `--${flag}: expected comma-separated numbers, found ${JSON.stringify(text)}`,
    );
  return values;
}

function oneNumber(flag: string, text: string | undefined, fallback: number): number {
  return numberList(flag, text, [fallback])[0] as number;
}

/** The study options of `chi study init` (checked against the study schema when written). */
function initOptions(values: Record<string, unknown>, dir: string): StudyInitOptions {
  const text = (name: string) => values[name] as string | undefined;
  const delaysDays = numberList('delays-days', text('delays-days'), STUDY_INIT_DEFAULTS.delaysDays);
  return {
    studyId:
      text('study-id') ??
      basename(dir)
        .toLowerCase()
        .replace(/[^a-z0-9-]/g, '-'),
    systems: text('systems')
      ?.split(',')
      .map((name) => name.trim()) ?? [...STUDY_INIT_DEFAULTS.systems],
    loads: numberList('loads', text('loads'), STUDY_INIT_DEFAULTS.loads),
    replicates: oneNumber('replicates', text('replicates'), STUDY_INIT_DEFAULTS.replicates),
    seed: oneNumber('seed', text('seed'), STUDY_INIT_DEFAULTS.seed),
    delaysDays,
    perSessionUsd: oneNumber('session-ceiling-usd', text('session-ceiling-usd'), 0),
    totalUsd: oneNumber('ceiling-usd', text('ceiling-usd'), 0),
    primarySession: oneNumber('primary-session', text('primary-session'), delaysDays.length - 1),
  };
}

/** `chi study run DIR [--now] [--shard i/n] [--concurrency N]` (a usage error naming the flag). */
function runCommand(
  values: Record<string, unknown>,
  dir: string,
): Extract<StudyCommand, { action: 'run' }> {
  const shardText = values.shard as string | undefined;
  let shard: ShardSpec | undefined;
  try {
    shard = shardText === undefined ? undefined : parseShardSpec(shardText);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const concurrency =
    values.concurrency === undefined
      ? undefined
      : oneNumber('concurrency', values.concurrency as string, 0);
  if (
    concurrency !== undefined &&
    (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64)
  )
    throw new UsageError(`--concurrency: expected an integer from 1 to 64, found ${concurrency}`);
  return {
    command: 'study',
    action: 'run',
    dir,
    early: values.now === true,
    ...(shard === undefined ? {} : { shard }),
    ...(concurrency === undefined ? {} : { concurrency }),
  };
}

/** Parses `chi study ACTION DIR [options]` (a usage error naming the flag or the action). */
export function parseStudy(args: readonly string[]): StudyCommand {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...args],
      options: parseArgsOptions(STUDY_FLAGS),
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(
      `chi study: ${(error as Error).message} (chi study --help lists the options)`,
    );
  }
  const [action, dir, extra] = parsed.positionals;
  if (
    !(ACTIONS as readonly (string | undefined)[]).includes(action) ||
    dir === undefined ||
    extra !== undefined
  )
    throw new UsageError(
      `chi study: expected "init|run|status|report|freeze|merge|add DIR", found ${JSON.stringify(parsed.positionals.join(' '))}`,
    );
  const values = parsed.values as Record<string, unknown>;
  if (action === 'init')
    return {
      command: 'study',
      action,
      dir,
      init: initOptions(values, dir),
      force: values.force === true,
    };
  if (action === 'add') {
    const systems = (values.systems as string | undefined)?.split(',').map((name) => name.trim());
    if (systems === undefined || systems.some((name) => name === ''))
      throw new UsageError('chi study add: --systems a,b names the systems the study gains');
    return { command: 'study', action, dir, systems };
  }
  if (action === 'run') return runCommand(values, dir);
  return { command: 'study', action: action as 'status' | 'report' | 'freeze' | 'merge', dir };
}
