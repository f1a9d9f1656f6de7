import { type CliCommand, parseCli } from './cli-args';
import type { CliIo } from './cli-io';

// The dispatch of the `chi` executable (cli.ts), over three module graphs loaded on demand:
// - `chi view` (view-cli.ts): browsing a run never loads the release writer's chart libraries;
// - `chi --help`, `version`, `templates` (cli-quick.ts): printed without the run or release writer;
// - everything else, usage errors included (cli-main.ts, `runCli`).
// None of the three imports this file or each other's entry, so the graphs stay apart
// (cli-quick.test.ts, view-cli-imports.test.ts).

/** The command line parsed, or null when it does not parse (`runCli` then says why). */
function parsedOrNull(argv: readonly string[]): CliCommand | null {
  try {
    return parseCli(argv);
  } catch {
    return null;
  }
}

/**
 * The `chi` executable's entry: `chi view` by the viewer's own module graph, the print-only
 * commands by cli-quick.ts, anything else (a usage error included, with its message and exit
 * code) by `runCli`. Prints what `runCli` prints and returns the same exit code.
 */
export async function runChi(argv: readonly string[], io: CliIo): Promise<number> {
  const command = parsedOrNull(argv);
  if (command?.command === 'view') return (await import('./view-cli')).runViewCommand(command, io);
  if (command !== null) {
    const code = (await import('./cli-quick')).printOnlyCommand(command, io);
    if (code !== null) return code;
  }
  return (await import('./cli-main')).runCli(argv, io);
}
