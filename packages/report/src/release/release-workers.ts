import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import {
  ChiError,
  InvalidArgumentError,
  RunFolderDamagedError,
  ValidationError,
  type ValidationIssue,
} from '@chi/spec';
import {
  RELEASE_TASKS,
  type ReleaseTaskInput,
  type ReleaseTaskName,
  type ReleaseTaskOutput,
} from './release-tasks';

/**
 * Worker threads for the parts of `chi score` and `chi verify` that are independent of the
 * scoring: copying, scanning and hashing the raw files of a release, and checking a release's
 * hashes and raw records. `CHI_WORKERS` (an integer >= 1) sets how many threads a command uses,
 * the main thread included; the default is `min(2, os.availableParallelism())`. With 1 (or where no
 * worker entry exists, e.g. the TypeScript sources under a test runner) every task runs on the
 * main thread through the same function, before the work it would have run beside: the outputs
 * are the same bytes whatever the count, only the time differs.
 */

/** The environment variable that sets the number of threads (main included). */
export const WORKERS_ENV = 'CHI_WORKERS';

/** The threads a release command uses, main included: `CHI_WORKERS`, else min(2, cores). */
export function releaseThreads(env: NodeJS.ProcessEnv = process.env): number {
  const setting = env[WORKERS_ENV];
  if (setting === undefined || setting.trim() === '') return Math.min(2, availableParallelism());
  const count = Number(setting);
  if (!Number.isInteger(count) || count < 1)
    throw new InvalidArgumentError(WORKERS_ENV, `expected an integer >= 1, found ${setting}`);
  return count;
}

let workerEntry: URL | null = null;

/**
 * Sets the file a worker thread starts from (a module that calls `serveReleaseWorker`). The
 * library's default is `release-worker.js` beside this module's build; the bundled verifier
 * (`code/verify.mjs`) names itself; tests name a bundle of the sources.
 */
export function setReleaseWorkerEntry(entry: URL | null): void {
  workerEntry = entry;
}

/** The worker entry to start, or null when there is none (then tasks run in-process). */
function releaseWorkerEntry(): URL | null {
  if (workerEntry !== null) return workerEntry;
  const built = new URL('./release-worker.js', import.meta.url);
  return built.protocol === 'file:' && existsSync(fileURLToPath(built)) ? built : null;
}

/** Whether release tasks start on worker threads (more than one thread, and a worker entry). */
export function releaseWorkersAvailable(): boolean {
  return releaseThreads() > 1 && releaseWorkerEntry() !== null;
}

/**
 * A release worker thread that ended without giving its task's result: it exited (`process.exit`
 * in a task's code, the runtime ending it) or threw outside its task (an uncaught exception, the
 * original error is the `cause`). `writeRelease` and `verifyRelease` reject with it instead of
 * waiting; `chi` prints its one-line message and exits 1 (runtime failure). Its task's own errors
 * are not this: they cross as the class the task threw (`reviveError`).
 */
export class ReleaseWorkerCrashedError extends ChiError {
  /** The release task the thread ran (`write-raw-files`, `verify-raw-records`, `score-blocks`). */
  readonly task: string;

  constructor(task: string, reason: string, options?: { cause?: unknown }) {
    super(`release worker (${task}) stopped unexpectedly: ${reason}`, options);
    this.name = 'ReleaseWorkerCrashedError';
    this.task = task;
  }

  /** True for this error, from any copy of `@chi/report`. */
  static override isInstance(error: unknown): error is ReleaseWorkerCrashedError {
    return ChiError.isInstance(error) && error.name === 'ReleaseWorkerCrashedError';
  }
}

/** The error of a worker thread that emitted `error` (threw outside its task). */
function threwOutside(task: string, error: unknown): ReleaseWorkerCrashedError {
  const message = error instanceof Error ? error.message : String(error);
  return new ReleaseWorkerCrashedError(task, message.split('\n')[0] ?? '', { cause: error });
}

/** The error of a worker thread that exited before posting its result. */
function exitedEarly(task: string, code: number): ReleaseWorkerCrashedError {
  return new ReleaseWorkerCrashedError(task, `exit code ${code}`);
}

/** A release task started on a worker thread or already run in-process. */
export interface ReleaseTask<T> {
  /** What the task gives; rejects with the error the in-process task would have thrown. */
  readonly result: Promise<T>;
  /** Stops the task (a worker is terminated; an in-process task has already ended). */
  stop(): Promise<void>;
}

/** An error as it crosses from a worker: its class name and the fields that rebuild it. */
export interface SerializedError {
  readonly name: string;
  readonly message: string;
  readonly stack?: string;
  readonly code?: string;
  readonly field?: string;
  readonly file?: string;
  readonly subject?: string;
  readonly issues?: readonly ValidationIssue[];
  readonly chi: boolean;
  readonly cause?: SerializedError;
}

/** An error thrown on a worker thread, as data. */
export function serializeError(error: unknown, depth = 0): SerializedError {
  if (!(error instanceof Error) && !ChiError.isInstance(error))
    return { name: 'Error', message: String(error), chi: false };
  const e = error as Error & Partial<Record<'code' | 'field' | 'file' | 'subject', unknown>>;
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const cause = e.cause !== undefined && depth < 4 ? serializeError(e.cause, depth + 1) : undefined;
  return {
    name: e.name,
    message: e.message,
    ...(e.stack === undefined ? {} : { stack: e.stack }),
    ...(text(e.code) === undefined ? {} : { code: text(e.code) as string }),
    ...(text(e.field) === undefined ? {} : { field: text(e.field) as string }),
    ...(text(e.file) === undefined ? {} : { file: text(e.file) as string }),
    ...(text(e.subject) === undefined ? {} : { subject: text(e.subject) as string }),
    ...(ValidationError.isInstance(error) ? { issues: error.issues } : {}),
    chi: ChiError.isInstance(error),
    ...(cause === undefined ? {} : { cause }),
  };
}

const BUILT_IN: Record<string, new (message: string) => Error> = {
  SyntaxError,
  TypeError,
  RangeError,
  Error,
};

/** The error a worker threw, rebuilt as the same class with the same message and fields. */
export function reviveError(data: SerializedError): Error {
  const options = data.cause === undefined ? undefined : { cause: reviveError(data.cause) };
  let error: Error;
  if (data.name === 'InvalidArgumentError' && data.field !== undefined)
    error = new InvalidArgumentError(
      data.field,
      data.message.slice(data.field.length + 2),
      options,
    );
  else if (data.name === 'RunFolderDamagedError' && data.file !== undefined)
    error = new RunFolderDamagedError(
      data.file,
      data.message.slice(`damaged run folder: ${data.file}: `.length),
      options,
    );
  else if (data.name === 'ValidationError' && data.subject !== undefined)
    error = new ValidationError(data.subject, data.issues ?? [], options);
  else if (data.chi) {
    error = new ChiError(data.message, options);
    error.name = data.name;
  } else {
    error = new (BUILT_IN[data.name] ?? Error)(data.message);
    if (options !== undefined) error.cause = options.cause;
    error.name = data.name;
  }
  if (data.code !== undefined) Object.assign(error, { code: data.code });
  if (data.stack !== undefined) error.stack = data.stack;
  return error;
}

/** A message from a release worker: a streamed chunk, or the task's result or its error. */
export type ReleaseWorkerMessage =
  | { readonly chunk: unknown }
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: SerializedError };

/** The main thread's answer to each chunk it has taken (`ack`); a worker sends at most this many ahead. */
export const STREAM_WINDOW = 4;

/** Runs a task in-process to its end, as a settled {@link ReleaseTask}. */
async function inProcess<N extends ReleaseTaskName>(
  name: N,
  input: ReleaseTaskInput<N>,
): Promise<ReleaseTask<ReleaseTaskOutput<N>>> {
  const run = RELEASE_TASKS[name] as (
    input: ReleaseTaskInput<N>,
    send: (chunk: unknown) => Promise<void>,
  ) => Promise<ReleaseTaskOutput<N>>;
  let outcome: { ok: true; value: ReleaseTaskOutput<N> } | { ok: false; error: unknown };
  try {
    outcome = {
      ok: true,
      value: await run(input, async () => {
        throw new Error(`release task ${name} streams: start it with streamReleaseTask`);
      }),
    };
  } catch (error) {
    outcome = { ok: false, error };
  }
  const result = outcome.ok ? Promise.resolve(outcome.value) : Promise.reject(outcome.error);
  result.catch(() => {});
  return { result, stop: async () => {} };
}

let startedOnWorkers = 0;

/** How many release tasks this process has started on worker threads (tests check the path). */
export function releaseTasksOnWorkers(): number {
  return startedOnWorkers;
}

/** Starts a task on a worker thread started from `entry`. */
function onWorker<N extends ReleaseTaskName>(
  entry: URL,
  name: N,
  input: ReleaseTaskInput<N>,
): ReleaseTask<ReleaseTaskOutput<N>> {
  const worker = new Worker(entry, { workerData: { chiReleaseTask: name, input } });
  startedOnWorkers += 1;
  let settled = false;
  const result = new Promise<ReleaseTaskOutput<N>>((resolve, reject) => {
    worker.once('message', (message: ReleaseWorkerMessage) => {
      settled = true;
      if ('chunk' in message)
        reject(new Error(`release task ${name} streams: use streamReleaseTask`));
      else if (message.ok) resolve(message.value as ReleaseTaskOutput<N>);
      else reject(reviveError(message.error));
    });
    worker.once('error', (error) => {
      settled = true;
      reject(threwOutside(name, error));
    });
    worker.once('exit', (code) => {
      if (!settled) reject(exitedEarly(name, code));
    });
  });
  result.catch(() => {});
  return {
    result,
    async stop() {
      await worker.terminate();
    },
  };
}

/**
 * Starts a release task: on a worker thread when the command has more than one thread
 * ({@link releaseThreads}) and a worker entry exists; otherwise runs it in-process now and
 * resolves when it has ended. Either way `result` gives the same value, or rejects with the
 * same error class, message and fields.
 */
export async function startReleaseTask<N extends ReleaseTaskName>(
  name: N,
  input: ReleaseTaskInput<N>,
): Promise<ReleaseTask<ReleaseTaskOutput<N>>> {
  const entry = releaseThreads() > 1 ? releaseWorkerEntry() : null;
  if (entry === null) return inProcess(name, input);
  return onWorker(entry, name, input);
}

/** A chunk from a worker, its end, or its error. */
type QueueItem<T> = { readonly chunk: T } | { readonly end: true } | { readonly error: Error };

/** The chunks a worker sent, taken in order by one consumer that waits when none is there. */
class ChunkQueue<T> {
  readonly #items: QueueItem<T>[] = [];
  #wake: (() => void) | null = null;

  push(item: QueueItem<T>): void {
    this.#items.push(item);
    this.#wake?.();
    this.#wake = null;
  }

  /** The chunks until the end; throws the error where it came; `taken` after each chunk. */
  async *items(taken: () => void): AsyncGenerator<T> {
    for (;;) {
      const item = this.#items.shift();
      if (item === undefined) {
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
        });
        continue;
      }
      if ('end' in item) return;
      if ('error' in item) throw item.error;
      taken();
      yield item.chunk;
    }
  }
}

/** A streaming release task on a worker thread: its chunks in order, then its end. */
export interface ReleaseStream<T> {
  /** The chunks in the order the worker sent them; throws the worker's error where it occurred. */
  readonly chunks: AsyncIterable<T>;
  /** What the task returned once every chunk was sent; rejects with its error. */
  readonly result: Promise<unknown>;
  /** Stops the worker (also when the chunks were not all taken). */
  stop(): Promise<void>;
}

/**
 * Starts a streaming release task on a worker thread, or returns null when the command has one
 * thread or no worker entry exists (the caller then does the work itself, in-process). The worker
 * runs at most {@link STREAM_WINDOW} chunks ahead of the chunks taken, so memory stays bounded
 * whatever the run's size.
 */
export function streamReleaseTask<T>(
  name: ReleaseTaskName,
  input: ReleaseTaskInput<ReleaseTaskName>,
): ReleaseStream<T> | null {
  const entry = releaseThreads() > 1 ? releaseWorkerEntry() : null;
  if (entry === null) return null;
  const worker = new Worker(entry, { workerData: { chiReleaseTask: name, input } });
  startedOnWorkers += 1;
  const queue = new ChunkQueue<T>();
  const push = (item: QueueItem<T>) => queue.push(item);
  let ended = false;
  let settle: { resolve: (value: unknown) => void; reject: (error: Error) => void } | null = null;
  const result = new Promise<unknown>((resolve, reject) => {
    settle = { resolve, reject };
  });
  result.catch(() => {});
  const end = (outcome: { value: unknown } | { error: Error }) => {
    ended = true;
    if ('value' in outcome) {
      push({ end: true });
      settle?.resolve(outcome.value);
    } else {
      push(outcome);
      settle?.reject(outcome.error);
    }
  };
  worker.on('message', (message: ReleaseWorkerMessage) => {
    if ('chunk' in message) push({ chunk: message.chunk as T });
    else if (message.ok) end({ value: message.value });
    else end({ error: reviveError(message.error) });
  });
  worker.once('error', (error) => end({ error: threwOutside(name, error) }));
  worker.once('exit', (code) => {
    if (!ended) end({ error: exitedEarly(name, code) });
  });
  return {
    chunks: queue.items(() => worker.postMessage('ack')),
    result,
    async stop() {
      await worker.terminate();
    },
  };
}
