import { RUN_FILE_NAME } from '@chi/run/internal';
/**
 * The exit codes of every `chi` command: the one table that `EXIT_CODES`, `chi help`, every
 * `chi <command> --help` and RUN-FOLDER.md's table are made from (a test keeps the document
 * equal to {@link renderExitCodeTable}).
 */
export const EXIT_CODE_TABLE = [
  {
    name: 'ok',
    code: 0,
    meaning:
      'finished and every block complete (or `--plan`, `serve`, `score`, `help` ended normally)',
  },
  { name: 'runtimeFailure', code: 1, meaning: 'runtime failure (unexpected error)' },
  {
    name: 'usage',
    code: 2,
    meaning:
      'usage error: bad option or option value (the message names the flag or file), missing key, missing ceiling, unreachable endpoint, allowlist not in the catalog',
  },
  {
    name: 'stoppedOrIncomplete',
    code: 3,
    meaning:
      'stopped early (budget ceiling, overcharge, or the first Ctrl-C, SIGTERM or SIGHUP: no new request, requests in flight settle, the resume command is printed) or finished with incomplete blocks',
  },
  {
    name: 'smokeFailed',
    code: 4,
    meaning: `a required smoke check failed; no scored request was sent (\`${RUN_FILE_NAME.status}\` says so)`,
  },
  {
    name: 'damagedRun',
    code: 5,
    meaning:
      'damaged run folder: a file is missing, unreadable, edited or contradicts the attempt log or the manifest (the message names it); nothing was sent',
  },
  {
    name: 'locked',
    code: 6,
    meaning: `the run folder is in use by another command (its \`${RUN_FILE_NAME.lock}\` holder is named: PID, host, since); nothing was sent or written`,
  },
  {
    name: 'secondSignal',
    code: 130,
    meaning:
      'a second Ctrl-C, SIGTERM or SIGHUP (the first, for a command with nothing in flight: score, verify, export, merge, calibrate, smoke, init, templates): quit at once (a request then in flight is settled by `--resume`)',
  },
] as const;

/** The name of an exit code of `EXIT_CODE_TABLE`. */
export type ExitCodeName = (typeof EXIT_CODE_TABLE)[number]['name'];

/** Exit codes of `chi` by name, from `EXIT_CODE_TABLE`. */
export const EXIT_CODES = Object.fromEntries(
  EXIT_CODE_TABLE.map((entry) => [entry.name, entry.code]),
) as { readonly [Entry in (typeof EXIT_CODE_TABLE)[number] as Entry['name']]: Entry['code'] };

/**
 * Which exit codes each command can end with (beyond the table's meaning). Every command run from
 * the `chi` executable can end with 130 (`stop-signals.ts`: a second stop signal, or the first
 * for a command not in `SETTLING_COMMANDS`).
 */
export const COMMAND_EXIT_CODES: Readonly<Record<string, readonly number[]>> = {
  pilot: [0, 1, 2, 3, 4, 5, 6, 130],
  score: [0, 1, 2, 5, 6, 130],
  smoke: [0, 1, 2, 4, 130],
  serve: [0, 1, 2, 130],
  init: [0, 1, 2, 130],
  export: [0, 1, 2, 5, 130],
  calibrate: [0, 1, 2, 130],
  view: [0, 1, 2, 5, 130],
  templates: [0, 1, 2, 130],
  merge: [0, 1, 2, 3, 5, 6, 130],
  study: [0, 1, 2, 3, 5, 6, 130],
};

/**
 * What exit 0 means for a command that neither runs blocks nor plans (the table's meaning is the
 * runs'): each command's `--help` lists its own, so `chi view --help` does not say "every block
 * complete".
 */
export const COMMAND_OK_MEANING: Readonly<Record<string, string>> = {
  score: 'scored (and the release written, unless --no-release)',
  smoke: 'every required smoke check passed',
  serve: 'served until Ctrl-C, SIGTERM or SIGHUP',
  init: 'the configuration file was written',
  export: 'the logs were written',
  calibrate: 'the calibration was written',
  view: 'served until Ctrl-C, SIGTERM or SIGHUP, or the bundle was written',
  templates: 'the experiments were listed',
};

/** The meaning of one exit code in a command's help (its own meaning of 0, if it has one). */
export function exitCodeMeaning(code: number, command?: string): string {
  const own = code === 0 && command !== undefined ? COMMAND_OK_MEANING[command] : undefined;
  const entry = EXIT_CODE_TABLE.find((candidate) => candidate.code === code);
  return (own ?? entry?.meaning ?? '').replaceAll('`', '');
}

/** The exit codes of one command (or of every command) as help text lines. */
export function exitCodesText(command?: string): string {
  const codes = command === undefined ? undefined : COMMAND_EXIT_CODES[command];
  const rows = EXIT_CODE_TABLE.filter(
    (entry) => codes === undefined || codes.includes(entry.code),
  ).map((entry) => `  ${entry.code}  ${exitCodeMeaning(entry.code, command)}`);
  return ['Exit codes:', ...rows].join('\n');
}

/** The exit-code table of RUN-FOLDER.md (Markdown), from `EXIT_CODE_TABLE`. */
export function renderExitCodeTable(): string {
  return [
    '| Code | Meaning |',
    '| ---- | ------- |',
    ...EXIT_CODE_TABLE.map((entry) => `| ${entry.code} | ${entry.meaning} |`),
  ].join('\n');
}
