import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { canonicalJson, readAttemptLog, sha256Hex } from '@chi/run';
import { openRun } from '@chi/run/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixtureRun } from '../__fixtures__/fixture-run';
import { tempDir } from '../__fixtures__/temp-dir';

describe("openRun (@chi/run) on the report's fixture run", () => {
  let dir: { path: string; remove: () => Promise<void> };
  beforeAll(async () => {
    dir = await tempDir('open-run');
    await buildFixtureRun(dir.path, { seeds: [11] });
  });
  afterAll(async () => dir.remove());

  it('gives the manifest, the plan, the attempt log (streamed and lean, chain checked) and a world', async () => {
    const run = openRun(dir.path);
    const manifest = await run.manifest();
    const raw = JSON.parse(await readFile(run.paths.manifest, 'utf8'));
    expect(manifest).toEqual(raw);
    const plan = await run.plan();
    expect(plan.requestCount).toBeGreaterThan(0);
    const whole = await readAttemptLog(run.paths.attempts);
    const streamed = [];
    for await (const record of run.attempts()) streamed.push(record);
    expect(streamed).toEqual(whole);
    const lean = await run.attemptLog(sha256Hex(canonicalJson(raw)));
    expect(lean.chain.problems).toEqual([]);
    expect(lean.chain.records).toBe(whole.length);
    expect([...lean.attempts]).toEqual(whole);
    const world = await run.historyWorld(11);
    expect(world.seed).toBe(11);
    expect(await run.requests.readRequestIndex()).toBeInstanceOf(Map);
    expect(join(dir.path, 'plan.json')).toBe(run.paths.plan);
  });
});
