import { rmSync } from 'node:fs';
import type { RenderedRequest } from '@chi/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FinishedRun, finishedOfflineRun } from './__fixtures__/offline-run';

let run: FinishedRun;
beforeAll(async () => {
  run = await finishedOfflineRun();
}, 300_000);
afterAll(() => rmSync(run.runDir, { recursive: true, force: true }));

/** A request without what may differ between A and A2: its ID (and so its file name). */
const sentPart = (request: RenderedRequest) => {
  const { requestId: _id, ...rest } = request;
  return rest;
};

describe('A2 repeats A exactly (the same-history control)', () => {
  it('every A2 request of a run is byte-identical to its A request, bar the request ID', () => {
    const pairs = [...run.requests.values()]
      .filter((request) => request.requestId.includes('.A.'))
      .map((a) => [a, run.requests.get(a.requestId.replace('.A.', '.A2.'))] as const);
    // 5 systems x 2 worlds x (5 probes + 4 updates)
    expect(pairs).toHaveLength(5 * 2 * 9);
    for (const [a, a2] of pairs) {
      expect(a2, `${a.requestId} has no A2 twin`).toBeDefined();
      if (a2 === undefined) continue;
      expect(JSON.stringify(sentPart(a2)), a2.requestId).toBe(JSON.stringify(sentPart(a)));
      expect(a2.requestSha256).toBe(a.requestSha256);
    }
  });
});
