import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { RUN_FILE_NAME } from '@chi/run/internal';
import { meanFactors, parseProbeReply, qualityScore, scoreMemoryProbes } from '@chi/scoring';
import type { AttemptRecord, MemoryWorld, QualityFactors, RunPlan } from '@chi/spec';
import { clusterBootstrap, type IntervalMethod } from '@chi/stats';
import { createRun } from '../run-create';
import { executeRun } from '../run-execute';
import { defaultOfflineSettings } from '../settings';
import { modelsForManifest } from '../system-models';
import type { CoverageObservation } from './coverage-table';

/**
 * The pilot's memory-quality cells with an exactly known value (docs/protocol.md, "Scripted
 * reference systems"): `perfect` (uncapped) has Q_M = 1 at every load; the abstainer, the
 * latest-wins reader and the confabulator have Q_M = 0 at every load (i = 0, i = 0 and 1 - f = 0).
 * Every one is deterministic, so its intervals are degenerate at the truth and the harness reports
 * them as deterministic cells: a check that the estimator lands on the truth, not of coverage.
 * EIMC is not here: perfect's EIMC is censored at the largest load (a lower bound, no value to
 * cover) and the others have no passing load (undefined, not 0).
 */
export const PILOT_QM_TRUTH: Readonly<Record<string, number>> = {
  perfect: 1,
  abstainer: 0,
  'latest-wins': 0,
  confabulator: 0,
};

/** Per `system load`, the per-world memory factors of a finished run folder (notebook only). */
function factorsPerWorld(runDir: string): Map<string, QualityFactors[]> {
  const results = new Map<string, string | null>();
  for (const line of readFileSync(join(runDir, RUN_FILE_NAME.attempts), 'utf8')
    .trim()
    .split('\n')) {
    const record = JSON.parse(line) as AttemptRecord;
    if (record.phase === 'after_response')
      results.set(record.requestId, record.result?.text ?? null);
  }
  const plan = JSON.parse(readFileSync(join(runDir, RUN_FILE_NAME.plan), 'utf8')) as RunPlan;
  const perKey = new Map<string, QualityFactors[]>();
  for (const request of plan.requests) {
    if (request.task !== 'memory_probe' || request.condition !== 'notebook') continue;
    if (PILOT_QM_TRUTH[request.systemId] === undefined) continue;
    const file = join(runDir, 'worlds', 'memory', `w${request.worldSeed}-n${request.load}.json.gz`);
    const world = JSON.parse(gunzipSync(readFileSync(file)).toString('utf8')) as MemoryWorld;
    const ids = world.probes.map((probe) => probe.id);
    const parsed = parseProbeReply(results.get(request.requestId) ?? '', ids);
    const key = `${request.systemId} ${request.load}`;
    perKey.set(key, [
      ...(perKey.get(key) ?? []),
      scoreMemoryProbes(world.answerKey, parsed).factors,
    ]);
  }
  return perKey;
}

/**
 * One pilot seed set: the offline memory experiment (no history, no behavior) with the default
 * scripted roster over `worlds` worlds from `rootSeed`, then Q_M (of the mean factors over
 * worlds, as the release computes it) per known system and load, bootstrapped over worlds.
 */
export async function pilotSeedSet(options: {
  readonly rootSeed: number;
  readonly worlds: number;
  readonly resamples: number;
  readonly methods: readonly IntervalMethod[];
  /** Memory loads (default: the pilot's). */
  readonly loads?: readonly number[];
}): Promise<CoverageObservation[]> {
  const root = mkdtempSync(join(tmpdir(), 'chi-coverage-pilot-'));
  try {
    const settings = defaultOfflineSettings({
      replicates: options.worlds,
      rootSeed: options.rootSeed,
      history: false,
      behavior: false,
      ...(options.loads === undefined ? {} : { loads: [...options.loads] }),
    });
    const run = await createRun({ settings, runDir: join(root, 'run') });
    await executeRun({ runDir: run.runDir, models: modelsForManifest(run.frozen.manifest) });
    const observations: CoverageObservation[] = [];
    for (const [key, worlds] of factorsPerWorld(run.runDir)) {
      const truth = PILOT_QM_TRUTH[key.split(' ')[0] as string] as number;
      for (const method of options.methods) {
        const boot = clusterBootstrap({
          clusters: worlds,
          seed: settings.analysisSeed,
          resamples: options.resamples,
          level: settings.level,
          method,
          statistic: (sample) => qualityScore(meanFactors(sample)),
        });
        observations.push({
          cell: `${key.replace(' ', ' Q_M@')}`,
          group: 'pilot Q_M (scripted)',
          method,
          truth,
          estimate: boot.estimate,
          lower: boot.interval?.lower ?? null,
          upper: boot.interval?.upper ?? null,
        });
      }
    }
    return observations;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
