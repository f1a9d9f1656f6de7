/** The deadline of one try (see {@link tryDeadline}). */
export interface TryDeadline {
  /** Aborted when the deadline passes or the caller aborts. */
  readonly signal: AbortSignal;
  /** Whether the deadline (not the caller) aborted the try. */
  timedOut(): boolean;
  /** Clears the timer and the caller listener. */
  dispose(): void;
}

/**
 * A try's deadline as a plain timer and controller that this function's caller holds until the
 * try ends. Not `AbortSignal.timeout`/`AbortSignal.any`: on Node 20 a signal combined from them
 * (ky combines ours with its own before fetch sees it) can be garbage-collected before it fires,
 * and a body that stalls after the headers then never ends. The timer keeps the controller alive.
 */
export function tryDeadline(ms: number, callerSignal: AbortSignal | undefined): TryDeadline {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException(`the ${ms} ms deadline passed`, 'TimeoutError'));
  }, ms);
  const onCallerAbort = () => controller.abort(callerSignal?.reason);
  if (callerSignal?.aborted === true) onCallerAbort();
  else callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    dispose() {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', onCallerAbort);
    },
  };
}

/**
 * `work`, or a rejection with the signal's reason as soon as `signal` aborts, whichever comes
 * first: reading a body ends at the deadline even when the fetch underneath missed the abort.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      work.catch(() => {});
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
