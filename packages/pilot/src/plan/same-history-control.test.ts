import type { RenderedRequest } from '@chi/spec';
import { beforeAll, describe, expect, it } from 'vitest';
import { type FinishedRun, sharedOfflineRun } from '../__fixtures__/offline-run';

// The default offline run, shared with manifest.test.ts and prompt-vocabulary.test.ts (read only).
let run: FinishedRun;
beforeAll(async () => {
  run = await sharedOfflineRun();
}, 300_000);

/** A request without what may differ between A and A2: its ID (and so its file name). */
const sentPart = (request: RenderedRequest) => {
  const { requestId: _id, ...rest } = request;
  return rest;
};

/**
 * A request without the instance's own notebook: the NOTES block of each message and the size
 * and hash of the messages. What is left is what the protocol gives the instance (events,
 * evidence, questions, nonce), which A2 must repeat from A exactly.
 */
const inputsPart = (request: RenderedRequest) => {
  const {
    requestId: _id,
    requestSha256: _sha,
    inputBytes: _bytes,
    ...rest
  } = request as RenderedRequest & { requestSha256?: string; inputBytes?: number };
  return JSON.stringify(rest).replace(/BEGIN NOTES JSON.*?END NOTES JSON/g, 'NOTES');
};

describe('A2 repeats A exactly (the same-history control)', () => {
  const pairsOf = () =>
    [...run.requests.values()]
      .filter((request) => request.requestId.includes('.A.'))
      .map((a) => [a, run.requests.get(a.requestId.replace('.A.', '.A2.'))] as const);

  it('every A2 request repeats its A request, bar the request ID and the instance own notebook', () => {
    const pairs = pairsOf();
    // 5 systems x 2 worlds x (5 probes + 4 updates)
    expect(pairs).toHaveLength(5 * 2 * 9);
    for (const [a, a2] of pairs) {
      expect(a2, `${a.requestId} has no A2 twin`).toBeDefined();
      if (a2 === undefined) continue;
      expect(inputsPart(a2), a2.requestId).toBe(inputsPart(a));
      // Before any history both notebooks are empty: the first probe is byte-identical.
      if (a.requestId.endsWith('.A.c0.probe')) {
        expect(JSON.stringify(sentPart(a2)), a2.requestId).toBe(JSON.stringify(sentPart(a)));
        expect(a2.requestSha256).toBe(a.requestSha256);
      }
    }
  });

  it('a stochastic scripted system draws its own noise in A2: its notebook can differ from A', () => {
    // Issue 31: with draws keyed by the prompt, A2 was a byte copy of A and D(A, A2) was 0 for
    // every scripted system. The draws are now per instance (world, system, arm, request).
    const differing = pairsOf().filter(
      ([a, a2]) => a2 !== undefined && JSON.stringify(sentPart(a2)) !== JSON.stringify(sentPart(a)),
    );
    expect(differing.length).toBeGreaterThan(0);
    // Only systems that declare noise differ (the perfect reference and the abstainer draw none).
    for (const [a] of differing) expect(a.requestId).not.toMatch(/^(perfect|abstainer)\./);
  });
});
