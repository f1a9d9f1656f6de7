#!/usr/bin/env node
import { boundHeapGrowth } from '@chi/report/viewer';
import { installStopSignals, SETTLING_COMMANDS } from './cli/stop-signals';

// The `chi` executable: wires the process (streams, environment, stop signals) to runCli, with the
// heap's growth between collections bounded (`boundHeapGrowth`: peak memory follows the data).
// `runChi` (cli/chi-entry.ts) loads only the module graph a command needs: `chi view` its own small
// one (the release writer's chart libraries would be a third of the viewer's first paint),
// `--help`, `version` and `templates` cli-quick.ts's, and only the other commands the rest of
// `chi` (cli-main.ts, the run and release writers).
boundHeapGrowth();
const argv = process.argv.slice(2);
const stop = installStopSignals(process, { settle: SETTLING_COMMANDS.includes(argv[0] ?? '') });
const { runChi } = await import('./cli/chi-entry');

runChi(argv, {
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
