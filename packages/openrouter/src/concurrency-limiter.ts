import { InvalidArgumentError } from '@chi/spec';

/** Runs async tasks with at most a fixed number in flight, first come first served. */
export interface ConcurrencyLimiter {
  /** Runs `task` when a slot is free; resolves or rejects with the task's own outcome. */
  run<T>(task: () => Promise<T>): Promise<T>;
  /** Tasks running now. */
  readonly active: number;
  /** Tasks waiting for a slot. */
  readonly pending: number;
}

/**
 * A tiny concurrency bound. The transport is per request and holds no pool of its own: the
 * caller (the pilot runner) owns concurrency and wraps each `generate` in `limiter.run`.
 *
 * @example
 * ```ts
 * const limiter = createConcurrencyLimiter(16);
 * const results = await Promise.all(requests.map((request) => limiter.run(() => model.generate(request))));
 * ```
 */
export function createConcurrencyLimiter(maxConcurrent: number): ConcurrencyLimiter {
  if (!Number.isInteger(maxConcurrent) || maxConcurrent < 1) {
    throw new InvalidArgumentError(
      'maxConcurrent',
      `expected an integer >= 1, found ${maxConcurrent}`,
    );
  }
  let active = 0;
  const queue: (() => void)[] = [];

  function release(): void {
    active -= 1;
    const next = queue.shift();
    if (next !== undefined) {
      active += 1;
      next();
    }
  }

  return {
    get active() {
      return active;
    },
    get pending() {
      return queue.length;
    },
    async run<T>(task: () => Promise<T>): Promise<T> {
      if (active < maxConcurrent) active += 1;
      else await new Promise<void>((resolve) => queue.push(resolve));
      try {
        return await task();
      } finally {
        release();
      }
    },
  };
}
