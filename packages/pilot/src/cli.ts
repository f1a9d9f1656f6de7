#!/usr/bin/env node
import { boundHeapGrowth } from '@chi/report';
import { runCli } from './cli-main';

// The `chi` executable: wires the process (streams, environment, Ctrl-C) to runCli, with the
// heap's growth between collections bounded (`boundHeapGrowth`: peak memory follows the data).
boundHeapGrowth();
const controller = new AbortController();
let interrupts = 0;
let release: () => void = () => {};
const untilStopped = new Promise<void>((resolve) => {
  release = resolve;
});
const onSignal = (): void => {
  interrupts += 1;
  release();
  if (interrupts === 1) {
    process.stderr.write(
      '\nchi: stopping: no new requests; waiting for requests in flight (Ctrl-C again to quit now)\n',
    );
    controller.abort();
  } else {
    process.exit(130);
  }
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  signal: controller.signal,
  untilStopped,
}).then(
  (code) => {
    process.exitCode = code;
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  },
  (error: unknown) => {
    process.stderr.write(`chi: ${(error as Error).message ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
