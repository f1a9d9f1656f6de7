#!/usr/bin/env node
import { boundHeapGrowth } from '@chi/report/viewer';
import { installStopSignals, SETTLING_COMMANDS } from './stop-signals';

// The `chi` executable: wires the process (streams, environment, stop signals) to runCli, with the
// heap's growth between collections bounded (`boundHeapGrowth`: peak memory follows the data).
// `chi view` loads its own small module graph (view-cli.ts) instead of every command's: the
// release writer's chart libraries would be a third of the viewer's first paint. Every other
// command goes through cli-quick.ts, which answers `--help`, `version` and `templates` itself and
// loads the rest of `chi` (cli-main.ts, the run and release writers) only for the other commands.
boundHeapGrowth();
const argv = process.argv.slice(2);
const stop = installStopSignals(process, { settle: SETTLING_COMMANDS.includes(argv[0] ?? '') });
const main =
  argv[0] === 'view'
    ? (await import('./view-cli')).runViewCli
    : (await import('./cli-quick')).runChi;

main(argv, {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  signal: stop.signal,
  untilStopped: stop.untilStopped,
}).then(
  (code) => {
    process.exitCode = code;
    stop.dispose();
  },
  (error: unknown) => {
    process.stderr.write(`chi: ${(error as Error).message ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
