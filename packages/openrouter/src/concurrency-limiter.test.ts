import { describe, expect, it } from 'vitest';
import { createConcurrencyLimiter } from './concurrency-limiter';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('createConcurrencyLimiter', () => {
  it('never runs more than the bound at once and starts waiting tasks in order', async () => {
    const limiter = createConcurrencyLimiter(2);
    const gates = [deferred(), deferred(), deferred(), deferred()];
    const started: number[] = [];
    let peak = 0;
    const runs = gates.map((gate, index) =>
      limiter.run(async () => {
        started.push(index);
        peak = Math.max(peak, limiter.active);
        await gate.promise;
        return index;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(limiter.pending).toBe(2);
    gates[1]!.resolve();
    await runs[1];
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2]);
    gates[0]!.resolve();
    gates[2]!.resolve();
    gates[3]!.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
    expect(peak).toBe(2);
    expect(limiter.active).toBe(0);
  });

  it('frees the slot when a task rejects', async () => {
    const limiter = createConcurrencyLimiter(1);
    await expect(limiter.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow(
      'boom',
    );
    expect(await limiter.run(async () => 'next')).toBe('next');
    expect(limiter.active).toBe(0);
  });

  it('refuses a bound below 1', () => {
    expect(() => createConcurrencyLimiter(0)).toThrow(
      'maxConcurrent: expected an integer >= 1, found 0',
    );
  });
});
