import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { ChisEntry, HistoryWorld } from '@chi/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKPOINT_CONDITIONS, chisEntriesFor } from './chis-entries';
import { modelsForManifest } from './endpoints/system-models';
import { finalResults, finishRun } from './pilot';
import { createRun, type RunHandle } from './run-folder/run-create';
import { runPaths } from './run-folder/run-folder';
import { readRunWorlds } from './run-folder/run-worlds';
import { executeRun } from './runner/run-execute';
import { scriptedSystemSpec } from './scripted/scripted-systems';
import { defaultOfflineSettings } from './settings';

let root: string;
let run: RunHandle;
const read = (system: string) =>
  readFileSync(join(run.runDir, 'chis', `${system}.jsonl`), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as ChisEntry);

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'chi-chis-'));
  run = await createRun({
    settings: defaultOfflineSettings({
      systems: ['perfect', 'abstainer'].map((name) => scriptedSystemSpec(name)),
      replicates: 2,
      loads: [],
      behavior: false,
    }),
    runDir: join(root, 'run'),
  });
  await executeRun({ runDir: run.runDir, models: modelsForManifest(run.frozen.manifest) });
  await finishRun(run.runDir, { release: false });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('CHIS entries', () => {
  it('writes one entry per checkpoint of every trajectory, with the three clocks kept apart', () => {
    const entries = read('perfect');
    expect(entries).toHaveLength(2 * 3 * 5);
    const trajectory = entries.filter(
      (entry) => entry.trajectoryId === `perfect.history.w${run.frozen.manifest.worldSeeds[0]}.A`,
    );
    expect(
      trajectory.map((entry) => [
        entry.checkpoint,
        entry.condition,
        entry.eventCount,
        entry.scheduledOperations,
        entry.resources.requests,
      ]),
    ).toEqual([
      // Events are the experiences ingested (updates); probes are scheduled operations only.
      [0, 'baseline', 0, 1, 1],
      [1, 'history', 1, 3, 2],
      [2, 'neutral', 2, 5, 2],
      [3, 'neutral', 3, 7, 2],
      [4, 'correction', 4, 9, 2],
    ]);
    expect(
      trajectory.every(
        (entry) => entry.chi === null && entry.evidenceClass === 'scripted_baseline',
      ),
    ).toBe(true);
    expect(trajectory[0]?.state).toMatchObject({ bytes: 0, truncated: false });
  });

  it('records the decision vector and accuracy against the warranted answers', () => {
    const seed = run.frozen.manifest.worldSeeds[0] as number;
    const world = JSON.parse(
      gunzipSync(readFileSync(join(run.runDir, 'worlds', 'history', `w${seed}.json.gz`))).toString(
        'utf8',
      ),
    ) as HistoryWorld;
    const coordinate = { A: 0, unknown: 0.5, B: 1 } as const;
    for (const history of ['A', 'B', 'A2'] as const) {
      const trajectory = read('perfect').filter(
        (entry) => entry.trajectoryId === `perfect.history.w${seed}.${history}`,
      );
      expect(trajectory.map((entry) => entry.decisionVector)).toEqual(
        world.validAnswers[history].map((row) => row.map((answer) => coordinate[answer])),
      );
      expect(trajectory.every((entry) => entry.profile.accuracy === 1)).toBe(true);
    }
    const abstainer = read('abstainer').filter(
      (entry) => entry.trajectoryId === `abstainer.history.w${seed}.B`,
    );
    expect(abstainer.map((entry) => entry.profile.accuracy)).toEqual([1, 0, 0, 0, 0]);
    expect(abstainer.every((entry) => entry.profile.explicitUnknownRate === 1)).toBe(true);
  });

  it('folds only the requests asked for, as the whole fold does (CHIS reads the history replies alone)', async () => {
    const all = await finalResults(run.runDir);
    const probes = (requestId: string) => requestId.endsWith('.probe');
    const kept = await finalResults(run.runDir, probes);
    const expected = [...all].filter(([requestId]) => probes(requestId));
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(all.size);
    expect([...kept]).toEqual(expected);
  });

  it('reads a failed probe as the scorer does: a truncated text that parses still gives invalid decisions', async () => {
    const seed = run.frozen.manifest.worldSeeds[0] as number;
    const probeId = `perfect.history.w${seed}.A.c2.probe`;
    const results = await finalResults(run.runDir);
    const probe = results.get(probeId);
    if (probe === undefined) throw new Error(`no result for ${probeId}`);
    // The text is the perfect system's full, parseable answer; only the failure class changes.
    results.set(probeId, { ...probe, failure: 'truncated', truncated: true });
    const worlds = await readRunWorlds(runPaths(run.runDir), run.frozen.manifest);
    const entries = chisEntriesFor({
      manifest: run.frozen.manifest,
      plan: run.plan,
      historyWorlds: worlds.history,
      results,
    });
    const entry = entries.find(
      (candidate) =>
        candidate.trajectoryId === `perfect.history.w${seed}.A` && candidate.checkpoint === 2,
    );
    expect(entry?.decisionVector).toEqual([null, null, null, null]);
    expect(entry?.profile).toMatchObject({ accuracy: 0, invalidRate: 1 });
  });

  it('labels checkpoints exactly as docs/protocol.md says the pilot writes them', () => {
    const protocol = readFileSync(new URL('../../../docs/protocol.md', import.meta.url), 'utf8');
    const sentence = /The pilot should write ([^.]+)\./.exec(protocol.replace(/\s+/g, ' '))?.[1];
    const documented = [...(sentence ?? '').matchAll(/`([a-z_]+)`/g)].map((match) => match[1]);
    expect(documented).toEqual([...new Set(CHECKPOINT_CONDITIONS)]);
  });
});
