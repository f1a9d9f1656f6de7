/**
 * The one way a test starts a Node child process and waits on it (`chi`, the bundled verifier, a
 * fixture script): start it, collect what it writes, wait for an event (a line it prints, a marker
 * file it writes, a request a loopback server holds) or for its exit, and stop it. Every wait is
 * for an event, never for a length of time: a marker file is awaited with `fs.watch` on its
 * folder, output with the stream's own data events, and each wait fails at once, with the child's
 * stderr, if the child exits first.
 *
 * A child still running when its test file ends (a test that failed or timed out before it
 * stopped it) is killed with SIGKILL by the setup file (`temp-dirs-file.ts`), which then fails the
 * file: every test stops what it starts.
 *
 * @example
 * const child = startNode([...(await nodeArgsFor(CLI)), 'pilot', '--out', dir], {
 *   env: { CHI_FAILPOINT: 'release:worker:1', CHI_FAILPOINT_MARKER: marker },
 * });
 * await child.untilFile(marker);
 * child.process.kill('SIGINT');
 * expect(await child.exit, child.stderr()).toBe(130);
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, watch } from 'node:fs';
import { dirname } from 'node:path';

/** How a child is started. */
export interface ChildOptions {
  /**
   * Over this process's environment, after `NO_COLOR=1` and without the provider keys
   * (`OPENROUTER_API_KEY`, `OPENAI_API_KEY`: a test never sends a credential); `undefined` removes
   * a variable.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The child's working folder (default: this process's). */
  readonly cwd?: string;
  /** `'pipe'` (default) collects it for {@link Child.stdout}; `'ignore'` discards it. */
  readonly stdout?: 'pipe' | 'ignore';
  /** `'pipe'` (default) collects it for {@link Child.stderr}; `'inherit'` passes it through. */
  readonly stderr?: 'pipe' | 'inherit';
}

/** A started child process. */
export interface Child {
  readonly process: ChildProcess;
  /**
   * The exit code, or the signal's name when a signal ended it; settles on `close`, once the
   * process has exited and every holder of its output pipes has closed them (a process it started
   * and left running keeps this pending).
   */
  readonly exit: Promise<number | string>;
  /** Everything the child wrote to stdout so far (`''` when it is not collected). */
  stdout(): string;
  /** Everything the child wrote to stderr so far (`''` when it is not collected). */
  stderr(): string;
  /**
   * Resolves once the collected `stream` contains `text` (or satisfies `test`); rejects, with the
   * child's stderr, if the child exits first.
   */
  until(stream: 'stdout' | 'stderr', test: string | ((text: string) => boolean)): Promise<void>;
  /**
   * Resolves once the file `path` exists (a marker the child writes, by rename, when it reaches a
   * failpoint); rejects, with the child's stderr, if the child exits first. Its folder must exist.
   */
  untilFile(path: string): Promise<void>;
  /** `'event'` if `event` settles before the child exits, `'exit'` otherwise. */
  firstOf(event: Promise<unknown>): Promise<'event' | 'exit'>;
  /** Sends `signal` (default SIGKILL) and resolves to the exit, as {@link exit}. */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

/** The children started by this module that have not closed yet. */
const running = new Set<ChildProcess>();

function childEnv(env: ChildOptions['env']): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete out.OPENROUTER_API_KEY;
  delete out.OPENAI_API_KEY;
  for (const [name, value] of Object.entries(env ?? {}))
    if (value === undefined) delete out[name];
    else out[name] = value;
  return out;
}

/** Calls `settle` once, when `ready()` holds after any of the child's output or on its exit. */
function waitFor(
  child: ChildProcess,
  exit: Promise<number | string>,
  ready: () => boolean,
  what: string,
  stderr: () => string,
  subscribe: (check: () => void) => () => void,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    let unsubscribe: () => void = () => undefined;
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      unsubscribe();
      if (error === undefined) resolve();
      else reject(error);
    };
    const check = () => {
      if (ready()) finish();
    };
    unsubscribe = subscribe(check);
    void exit.then((code) => {
      if (ready()) finish();
      else
        finish(
          new Error(`child ${child.pid} exited (${code}) before ${what}; its stderr:\n${stderr()}`),
        );
    });
    check();
  });
}

/** Starts `node ARGS` (`process.execPath`) as a child process; see {@link ChildOptions}. */
export function startNode(args: readonly string[], options: ChildOptions = {}): Child {
  const child = spawn(process.execPath, [...args], {
    env: childEnv(options.env),
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    stdio: ['ignore', options.stdout ?? 'pipe', options.stderr ?? 'pipe'],
  });
  running.add(child);
  const output = { stdout: '', stderr: '' };
  const listeners = new Set<() => void>();
  const collect = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
    output[stream] += chunk.toString('utf8');
    for (const listener of [...listeners]) listener();
  };
  child.stdout?.on('data', collect('stdout'));
  child.stderr?.on('data', collect('stderr'));
  const exit = new Promise<number | string>((resolve) =>
    child.once('close', (code, signal) => {
      running.delete(child);
      resolve(code ?? signal ?? 'unknown');
    }),
  );
  const stderr = () => output.stderr;
  const onOutput = (check: () => void) => {
    listeners.add(check);
    return () => listeners.delete(check);
  };
  return {
    process: child,
    exit,
    stdout: () => output.stdout,
    stderr,
    until: (stream, test) => {
      const ready =
        typeof test === 'string' ? () => output[stream].includes(test) : () => test(output[stream]);
      return waitFor(child, exit, ready, `its ${stream} showed ${String(test)}`, stderr, onOutput);
    },
    untilFile: (path) =>
      waitFor(
        child,
        exit,
        () => existsSync(path),
        `${path} appeared`,
        stderr,
        (check) => {
          // watching starts before the first check, so a file made in between is not missed
          const watcher = watch(dirname(path), check);
          watcher.on('error', check); // the folder went away: the child's exit settles the wait
          return () => watcher.close();
        },
      ),
    firstOf: (event) =>
      Promise.race([event.then(() => 'event' as const), exit.then(() => 'exit' as const)]),
    stop: (signal = 'SIGKILL') => {
      child.kill(signal);
      return exit;
    },
  };
}

/** What a finished child left: its exit (code or signal name) and what it wrote. */
export interface ChildResult {
  readonly exit: number | string;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `node ARGS` to its end; see {@link startNode}. */
export async function runNode(
  args: readonly string[],
  options: ChildOptions = {},
): Promise<ChildResult> {
  const child = startNode(args, options);
  const exit = await child.exit;
  return { exit, stdout: child.stdout(), stderr: child.stderr() };
}

/**
 * Kills (SIGKILL) every child of this module still running and waits for each to close; returns
 * how many there were. The setup file calls it after each test file's own hooks.
 */
export async function killLeftChildren(): Promise<number> {
  const left = [...running];
  await Promise.all(
    left.map(
      (child) =>
        new Promise<void>((resolve) => {
          child.once('close', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
  return left.length;
}
