import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { failpoint } from '../failpoint';
import { RELEASE_TASKS, type ReleaseTaskName } from './release-tasks';
import { type ReleaseWorkerMessage, STREAM_WINDOW, serializeError } from './release-workers';

/** What a release worker is started with (`startReleaseTask`). */
interface ReleaseWorkerData {
  readonly chiReleaseTask: ReleaseTaskName;
  readonly input: unknown;
}

function isReleaseWorkerData(data: unknown): data is ReleaseWorkerData {
  return (
    typeof data === 'object' &&
    data !== null &&
    typeof (data as { chiReleaseTask?: unknown }).chiReleaseTask === 'string' &&
    Object.hasOwn(RELEASE_TASKS, (data as { chiReleaseTask: string }).chiReleaseTask)
  );
}

let served = false;

/**
 * Runs the release task this thread was started for (`startReleaseTask` of `release-workers.ts`)
 * and posts its result, or its error as data, to the main thread. Returns whether this thread is
 * a release worker, so an entry that is also a command (the bundled `code/verify.mjs`) runs its
 * command only when it is not. Calling it again on the same thread runs nothing twice.
 */
export function serveReleaseWorker(): boolean {
  if (isMainThread || parentPort === null || !isReleaseWorkerData(workerData)) return false;
  if (served) return true;
  served = true;
  const port = parentPort;
  const { chiReleaseTask, input } = workerData;
  const run = RELEASE_TASKS[chiReleaseTask] as (
    input: unknown,
    send: (chunk: unknown) => Promise<void>,
  ) => Promise<unknown>;
  // a streamed chunk waits while STREAM_WINDOW chunks are not yet taken by the main thread
  let ahead = 0;
  let resume: (() => void) | null = null;
  const onAck = (message: unknown) => {
    if (message !== 'ack') return;
    ahead -= 1;
    if (ahead < STREAM_WINDOW) {
      resume?.();
      resume = null;
    }
  };
  port.on('message', onAck);
  const send = async (chunk: unknown) => {
    port.postMessage({ chunk } satisfies ReleaseWorkerMessage);
    ahead += 1;
    if (ahead >= STREAM_WINDOW)
      await new Promise<void>((resolve) => {
        resume = resolve;
      });
  };
  const done = () => port.off('message', onAck);
  // a test holds (or crashes) the thread here, its task deterministically in flight
  failpoint('release:worker')
    .then(() => run(input, send))
    .then(
      (value) => {
        done();
        port.postMessage({ ok: true, value } satisfies ReleaseWorkerMessage);
      },
      (error: unknown) => {
        done();
        port.postMessage({
          ok: false,
          error: serializeError(error),
        } satisfies ReleaseWorkerMessage);
      },
    );
  return true;
}

serveReleaseWorker();
