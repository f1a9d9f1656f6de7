#!/usr/bin/env node
import { boundHeapGrowth } from '@chi/report/internal';
import { runCli } from './cli-main';
import { installStopSignals } from './stop-signals';

// The `chi` executable: wires the process (streams, environment, stop signals) to runCli, with the
// heap's growth between collections bounded (`boundHeapGrowth`: peak memory follows the data).
boundHeapGrowth();
const stop = installStopSignals(process);

runCli(process.argv.slice(2), {
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
