/**
 * The transcript-replay baseline of the memory experiment (opt-in) in a real offline pilot run:
 * what scripted systems reach when they read the stored transcript instead of their notes, and
 * what that costs in bytes stored and replayed. `@chi/pilot` comes through the test alias.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChartData } from '@chi/analysis';
import type { TranscriptReplayRow } from '@chi/analysis/internal';
import {
  createScriptedModel,
  defaultOfflineSettings,
  runPilot,
  scriptedSystemSpec,
} from '@chi/pilot';
import { verifyRelease, writeRelease } from '@chi/report';
import type { AttemptRecord, RunManifest, RunPlan } from '@chi/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../packages/report/src/__fixtures__/temp-dir';
import { fixedClock } from './__fixtures__/fixed-clock';

describe('transcript-replay baseline (opt-in)', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let runDir: string;
  let outDir: string;
  let data: ChartData;
  beforeAll(async () => {
    dir = await tempDir('replay');
    runDir = join(dir.path, 'run');
    outDir = join(dir.path, 'release');
    const now = fixedClock('2026-09-01T00:00:00.000Z');
    const settings = defaultOfflineSettings({
      systems: ['perfect', 'capacity-keeper', 'abstainer'].map((name) => scriptedSystemSpec(name)),
      replicates: 2,
      loads: [32, 256],
      controlsAtLoad: null,
      history: false,
      behavior: false,
      resamples: 200,
      transcriptReplay: true,
    });
    const models = new Map(settings.systems.map((s) => [s.id, createScriptedModel(s.id, { now })]));
    const outcome = await runPilot({
      settings,
      runDir,
      models,
      concurrency: 1,
      release: false,
      now,
    });
    expect(outcome.exitCode).toBe(0);
    await writeRelease({ runDir, outDir });
    data = JSON.parse(await readFile(join(outDir, 'chart-data', 'chart-data.json'), 'utf8'));
  });
  afterAll(async () => dir.remove());

  const q = (system: string, load: number, condition: string) =>
    data.memory.find((p) => p.systemId === system && p.condition === condition && p.load === load)
      ?.qualityScore.estimate;
  const row = (system: string, load: number) =>
    data.transcriptReplay?.find((r) => r.systemId === system && r.load === load) as
      | TranscriptReplayRow
      | undefined;

  it('freezes the option and its template in the manifest, and plans replay probes in the memory blocks', async () => {
    const manifest = JSON.parse(
      await readFile(join(runDir, 'manifest.json'), 'utf8'),
    ) as RunManifest;
    expect(manifest.experiments.memory?.transcriptReplay).toBe(true);
    expect(manifest.prompts.map((p) => p.name)).toContain('memory-probe-replay');
    const plan = JSON.parse(await readFile(join(runDir, 'plan.json'), 'utf8')) as RunPlan;
    const replay = plan.requests.filter((r) => r.condition === 'replay');
    // 3 systems x 2 worlds x 2 loads, one batch each, in the notebook condition's own block
    expect(replay).toHaveLength(12);
    for (const request of replay) {
      expect(request.blockId).toMatch(/^memory\./);
      expect(request.dependsOn).toEqual([request.requestId.replace('replay.probe.b0', 'encode')]);
    }
  });

  it('separates the systems: perfect reaches Q_M 1 with replay, the capped keeper does better with replay at a high load', () => {
    expect([q('perfect', 32, 'replay'), q('perfect', 256, 'replay')]).toEqual([1, 1]);
    const keeperNotebook = q('capacity-keeper', 256, 'notebook') as number;
    const keeperReplay = q('capacity-keeper', 256, 'replay') as number;
    expect(keeperNotebook).toBeLessThan(0.8);
    expect(keeperReplay).toBe(1);
    // replay cannot help a system that answers nothing
    expect(q('abstainer', 256, 'replay')).toBe(0);
  });

  it('counts what replay stores and sends: more than the capped notebook, tokens not counted for scripted systems', () => {
    const keeper = row('capacity-keeper', 256) as TranscriptReplayRow;
    expect(keeper.worldSeeds).toEqual([...data.run.worldSeeds].sort((a, b) => a - b));
    expect(keeper.notebookStoredBytes.max).toBeLessThanOrEqual(data.run.notebookCapBytes);
    expect(keeper.transcriptStoredBytes.min).toBeGreaterThan(5 * data.run.notebookCapBytes);
    expect(keeper.replayProbeInputBytes.min).toBeGreaterThan(keeper.transcriptStoredBytes.min);
    expect(keeper.replayProbeInputBytes.min).toBeGreaterThan(keeper.notebookProbeInputBytes.max);
    expect(keeper.replayProbeInputTokens).toBeNull();
    expect(keeper.notebookProbeInputTokens).toBeNull();
    // storage grows with the load; the uncapped perfect system stores a longer reply than the keeper
    expect(keeper.transcriptStoredBytes.mean).toBeGreaterThan(
      (row('capacity-keeper', 32) as TranscriptReplayRow).transcriptStoredBytes.mean,
    );
    expect((row('perfect', 256) as TranscriptReplayRow).transcriptStoredBytes.mean).toBeGreaterThan(
      keeper.transcriptStoredBytes.mean,
    );
  });

  it('stores exactly the encode messages and the reply, by hand from the attempt log', async () => {
    const seed = data.run.worldSeeds[0] as number;
    const encodeId = `capacity-keeper.memory.w${seed}.n256.encode`;
    const attempts = (await readFile(join(runDir, 'attempts.jsonl'), 'utf8'))
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as AttemptRecord)
      .filter((a) => a.requestId === encodeId && a.phase === 'after_response');
    const [attempt] = attempts;
    expect(attempt).toBeDefined();
    // JSON.stringify([...messages, reply]) = the messages array without its ']', a comma, the reply, ']'
    const reply = JSON.stringify({ role: 'assistant', content: attempt?.result?.text ?? '' });
    const expected = (attempt?.inputBytes ?? 0) + 1 + Buffer.byteLength(reply, 'utf8');
    const keeper = row('capacity-keeper', 256) as TranscriptReplayRow;
    expect([keeper.transcriptStoredBytes.min, keeper.transcriptStoredBytes.max]).toContain(
      expected,
    );
  });

  it('reports the baseline beside Q_M in its own report section', async () => {
    const report = await readFile(join(outDir, 'report.md'), 'utf8');
    expect(report).toContain('### Transcript-replay baseline');
    expect(report).toContain('storage and replay costs must be counted');
    expect(report).toContain('not counted');
    // a replay case example names what the probe read, not the notebook's lines
    const cases = JSON.parse(
      await readFile(join(outDir, 'chart-data', 'case-examples.json'), 'utf8'),
    ) as { condition: string; notebookExcerpt: string }[];
    const replayCases = cases.filter((c) => c.condition === 'replay');
    expect(replayCases.length).toBeGreaterThan(0);
    for (const c of replayCases) expect(c.notebookExcerpt).toMatch(/^\(transcript-replay baseline/);
  });

  it('verifies: chi verify recomputes the replay rows', async () => {
    const report = await verifyRelease(outDir);
    expect(report.mismatches).toEqual([]);
  });
});
