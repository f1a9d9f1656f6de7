import { EXIT_CODES } from './exit-codes';

/**
 * The signals that stop a `chi` command cleanly: Ctrl-C (`SIGINT`), `SIGTERM` (a supervisor, `kill`)
 * and `SIGHUP` (the terminal or ssh session that ran the command closed). All three take the same
 * path, so a closed terminal never abandons paid requests in flight the way `kill -9` does.
 */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
/** One of {@link STOP_SIGNALS}. */
export type StopSignalName = (typeof STOP_SIGNALS)[number];

/** Exit code of a second stop signal: quit at once (128 + SIGINT's number, the shell's convention). */
export const EXIT_ON_SECOND_SIGNAL = EXIT_CODES.secondSignal;

/** The part of `process` the stop path uses (injectable for tests). */
export interface SignalProcess {
  on(event: StopSignalName, listener: () => void): unknown;
  removeListener(event: StopSignalName, listener: () => void): unknown;
  exit(code: number): never;
  readonly stdout: NodeJS.EventEmitter;
  readonly stderr: NodeJS.EventEmitter & { write(text: string): unknown };
}

/**
 * The commands that have something to settle when asked to stop: the runs (`pilot`, `study`: no
 * new request, requests in flight settle, exit 3) and the servers (`serve`, `view`: stop serving,
 * exit 0). Every other command (`score`, `verify`, `export`, `merge`, ...) has no request in flight
 * and no way to stop part-way, so its first stop signal quits at once with exit 130 instead of
 * printing that it is stopping and then running on to the end.
 */
export const SETTLING_COMMANDS: readonly string[] = ['pilot', 'study', 'serve', 'view'];

/** What {@link installStopSignals} hands to the command. */
export interface StopSignals {
  /**
   * Aborted on the first stop signal; every protocol's executor (`executeRun`, through `runPilot`)
   * then sends no new request and lets the requests in flight run to their result.
   */
  readonly signal: AbortSignal;
  /** Resolves on the first stop signal (`chi serve` and `chi view` stop serving). */
  readonly untilStopped: Promise<void>;
  /** Removes the listeners (the command has ended). */
  dispose(): void;
}

/**
 * The one stop path of every `chi` command: the first `SIGINT`, `SIGTERM` or `SIGHUP` aborts
 * {@link StopSignals.signal} and prints what happens next; a second one exits at once with
 * {@link EXIT_ON_SECOND_SIGNAL}; with `settle: false` (a command not in {@link SETTLING_COMMANDS})
 * the first one does. After `SIGHUP` the terminal may be gone, so a failed write to
 * stdout or stderr is ignored instead of crashing the process while requests are in flight.
 */
export function installStopSignals(
  target: SignalProcess,
  options: { readonly settle?: boolean } = {},
): StopSignals {
  const controller = new AbortController();
  let signals = 0;
  let release: () => void = () => {};
  const untilStopped = new Promise<void>((resolve) => {
    release = resolve;
  });
  const ignoreWriteError = (): void => {};
  const listeners = STOP_SIGNALS.map((name) => {
    const listener = (): void => {
      signals += 1;
      release();
      if (signals > 1) target.exit(EXIT_ON_SECOND_SIGNAL);
      if (options.settle === false) {
        target.stderr.write(`\nchi: ${name}: quit (exit ${EXIT_ON_SECOND_SIGNAL})\n`);
        target.exit(EXIT_ON_SECOND_SIGNAL);
        return; // unreached in a process; a test's recording exit returns
      }
      if (name === 'SIGHUP') {
        target.stdout.on('error', ignoreWriteError);
        target.stderr.on('error', ignoreWriteError);
      }
      target.stderr.write(
        `\nchi: ${name}: stopping: no new requests; waiting for requests in flight (Ctrl-C again quits now, exit 130)\n`,
      );
      controller.abort();
    };
    target.on(name, listener);
    return [name, listener] as const;
  });
  return {
    signal: controller.signal,
    untilStopped,
    dispose() {
      for (const [name, listener] of listeners) target.removeListener(name, listener);
    },
  };
}
