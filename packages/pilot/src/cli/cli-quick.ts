import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OPT_IN_EXPERIMENT_IDS, REGISTERED_EXPERIMENTS } from '../experiments/registry';
import { PILOT_PACKAGE_DIR } from '../package-dir';
import { type CliCommand, USAGE } from './cli-args';
import { COMMAND_USAGE } from './cli-help';
import type { CliIo } from './cli-io';
import { EXIT_CODES } from './exit-codes';
import { formatTemplates } from './templates-command';

// The commands that only print (`chi --help`, `chi <command> --help`, `chi version`, `chi
// templates`), answered from a small module graph: the rest of `chi` (cli-main.ts) reaches the run
// writer, the release writer (@chi/report's main entry, its figures and chart libraries) and the
// verifier, which these commands never use. view-cli-imports.test.ts keeps this module's static
// graph free of them; cli-quick.test.ts proves that `chi --help` does not load them.

/** The version of this package, read from its package.json (beside `src/` and `dist/`). */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(join(PILOT_PACKAGE_DIR, 'package.json'), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

/**
 * Prints what a help, version or templates command prints and returns its exit code (0), or
 * returns null for any other command (cli-main.ts runs those).
 */
export function printOnlyCommand(command: CliCommand, io: Pick<CliIo, 'stdout'>): number | null {
  switch (command.command) {
    case 'help':
      io.stdout.write(`${command.topic === undefined ? USAGE : COMMAND_USAGE[command.topic]}\n`);
      return EXIT_CODES.ok;
    case 'version':
      io.stdout.write(`${packageVersion()}\n`);
      return EXIT_CODES.ok;
    case 'templates':
      io.stdout.write(formatTemplates(REGISTERED_EXPERIMENTS, OPT_IN_EXPERIMENT_IDS));
      return EXIT_CODES.ok;
    default:
      return null;
  }
}
