import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { fadingRecall } from '@chi/experiments/internal';
import { RUN_FILE_NAME } from '@chi/run/internal';
import {
  eimcFromScores,
  meanFactors,
  parseProbeReply,
  qualityScore,
  scoreMemoryProbes,
} from '@chi/scoring';
import type { AttemptRecord, MemoryWorld, QualityFactors, RunPlan } from '@chi/spec';
import { clusterBootstrap, type IntervalMethod } from '@chi/stats';
import { modelsForManifest } from '../endpoints/system-models';
import { createRun } from '../run-folder/run-create';
import { executeRun } from '../runner/run-execute';
import { scriptedSystemSpec } from '../scripted/scripted-systems';
import { defaultOfflineSettings } from '../settings';
import type { CoverageObservation } from './coverage-table';

/**
 * The pilot's memory-quality cells with an exactly known value (docs/protocol.md, "Scripted
 * reference systems"): `perfect` (uncapped) has Q_M = 1 at every load; the abstainer, the
 * latest-wins reader and the confabulator have Q_M = 0 at every load (i = 0, i = 0 and 1 - f = 0).
 * Every one is deterministic, so its intervals are degenerate at the truth and the harness reports
 * them as deterministic cells: a check that the estimator lands on the truth, not of coverage.
 * EIMC is not here: perfect's EIMC is censored at the largest load (a lower bound, no value to
 * cover) and the others have no passing load (undefined, not 0); the opt-in `fading-recall`
 * system has an interior one ({@link FADING_RECALL_SYSTEM}).
 */
export const PILOT_QM_TRUTH: Readonly<Record<string, number>> = {
  perfect: 1,
  abstainer: 0,
  'latest-wins': 0,
  confabulator: 0,
};

/** Whether `systemId` is a pilot system with known cells (`--only` runs the pilot for it). */
export function isPilotCoverageSystem(systemId: string): boolean {
  return systemId === FADING_RECALL_SYSTEM || systemId in PILOT_QM_TRUTH;
}

/** The opt-in scripted system with a known, interior Q_M and EIMC that the harness adds. */
export const FADING_RECALL_SYSTEM = 'fading-recall';

/** Its recall half-load (the system's `recallHalfLoad`). */
const FADING_HALF_LOAD = 256;

/**
 * The fading-recall system's expected Q_M at load N (docs/protocol.md, "A scripted system with a
 * known, interior EIMC"): with q = 2^(-N/256), r, s, u and i pass with q, t with (1 + 3q) / 4 (a
 * quarter of the as-of probes have no eligible record, where abstaining is right) and 1 - f = 1,
 * so with equal weights Q_M = (q^4 (1 + 3q) / 4)^(1/6).
 */
export function fadingRecallQualityScore(load: number): number {
  const q = fadingRecall(load, FADING_HALF_LOAD);
  return qualityScore({ r: q, t: (1 + 3 * q) / 4, s: q, u: q, i: q, oneMinusF: 1 });
}

type WorldFactors = Map<number, QualityFactors>;

/** Per system, per world (plan order), the notebook memory factors per load of a finished run. */
function factorsPerWorld(runDir: string, systems: ReadonlySet<string>) {
  const results = new Map<string, string | null>();
  for (const line of readFileSync(join(runDir, RUN_FILE_NAME.attempts), 'utf8')
    .trim()
    .split('\n')) {
    const record = JSON.parse(line) as AttemptRecord;
    if (record.phase === 'after_response')
      results.set(record.requestId, record.result?.text ?? null);
  }
  const plan = JSON.parse(readFileSync(join(runDir, RUN_FILE_NAME.plan), 'utf8')) as RunPlan;
  const perSystem = new Map<string, Map<number, WorldFactors>>();
  for (const request of plan.requests) {
    if (request.task !== 'memory_probe' || request.condition !== 'notebook') continue;
    if (!systems.has(request.systemId) || request.load === null) continue;
    const file = join(runDir, 'worlds', 'memory', `w${request.worldSeed}-n${request.load}.json.gz`);
    const world = JSON.parse(gunzipSync(readFileSync(file)).toString('utf8')) as MemoryWorld;
    const ids = world.probes.map((probe) => probe.id);
    const parsed = parseProbeReply(results.get(request.requestId) ?? '', ids);
    const worlds = perSystem.get(request.systemId) ?? new Map<number, WorldFactors>();
    const loads = worlds.get(request.worldSeed) ?? new Map<number, QualityFactors>();
    loads.set(request.load, scoreMemoryProbes(world.answerKey, parsed).factors);
    worlds.set(request.worldSeed, loads);
    perSystem.set(request.systemId, worlds);
  }
  return perSystem;
}

/** Every known cell of one system: Q_M per load, and EIMC per tau for the fading-recall system. */
function truthsOf(
  systemId: string,
  loads: readonly number[],
  taus: readonly number[],
): { readonly statistic: string; readonly group: string; readonly truth: number }[] {
  if (systemId !== FADING_RECALL_SYSTEM)
    return loads.map((load) => ({
      statistic: `Q_M@${load}`,
      group: 'pilot Q_M (scripted)',
      truth: PILOT_QM_TRUTH[systemId] as number,
    }));
  const scores = loads.map(fadingRecallQualityScore);
  return [
    ...loads.map((load, index) => ({
      statistic: `Q_M@${load}`,
      group: 'pilot Q_M (fading-recall)',
      truth: scores[index] as number,
    })),
    // An EIMC at the largest load is censored (a lower bound): no value an interval could cover.
    ...taus.flatMap((tau) => {
      const truth = eimcFromScores(loads, scores, tau);
      return truth === null || truth === Math.max(...loads)
        ? []
        : [{ statistic: `EIMC@${tau}`, group: 'pilot EIMC', truth }];
    }),
  ];
}

/**
 * One pilot seed set: the offline memory experiment (no history, no behavior) with the default
 * scripted roster and the opt-in fading-recall system over `worlds` worlds from `rootSeed`, then
 * Q_M (of the mean factors over worlds, as the release computes it) per known system and load, and
 * the fading-recall system's EIMC per tau (on the finite grid, as the release computes it), each
 * bootstrapped over worlds.
 */
export async function pilotSeedSet(options: {
  readonly rootSeed: number;
  readonly worlds: number;
  readonly resamples: number;
  readonly methods: readonly IntervalMethod[];
  /** Memory loads (default: the pilot's). */
  readonly loads?: readonly number[];
  /**
   * Only this system (`--only`): the roster is that system alone. A scripted system draws from its
   * own per-instance stream (world, system, instance), so its cells do not depend on the roster.
   */
  readonly only?: string;
}): Promise<CoverageObservation[]> {
  const root = mkdtempSync(join(tmpdir(), 'chi-coverage-pilot-'));
  try {
    const base = defaultOfflineSettings();
    const roster = [...base.systems, scriptedSystemSpec(FADING_RECALL_SYSTEM)];
    const settings = defaultOfflineSettings({
      systems:
        options.only === undefined ? roster : roster.filter((system) => system.id === options.only),
      replicates: options.worlds,
      rootSeed: options.rootSeed,
      history: false,
      behavior: false,
      ...(options.loads === undefined ? {} : { loads: [...options.loads] }),
    });
    const run = await createRun({ settings, runDir: join(root, 'run') });
    await executeRun({ runDir: run.runDir, models: modelsForManifest(run.frozen.manifest) });
    const known = new Set([...Object.keys(PILOT_QM_TRUTH), FADING_RECALL_SYSTEM]);
    const observations: CoverageObservation[] = [];
    for (const [systemId, worlds] of factorsPerWorld(run.runDir, known)) {
      const truths = truthsOf(systemId, settings.loads, settings.taus);
      for (const method of options.methods) {
        const boot = clusterBootstrap({
          clusters: [...worlds.values()],
          seed: settings.analysisSeed,
          resamples: options.resamples,
          level: settings.level,
          method,
          statistic: (sample) => cellsOf(sample, settings.loads, settings.taus),
        });
        for (const { statistic, group, truth } of truths) {
          const found = boot[statistic];
          observations.push({
            cell: `${systemId} ${statistic}`,
            group,
            method,
            truth,
            estimate: found?.estimate ?? null,
            lower: found?.interval?.lower ?? null,
            upper: found?.interval?.upper ?? null,
          });
        }
      }
    }
    return observations;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Q_M per load of the mean factors over the sampled worlds, and EIMC per tau on that curve. */
function cellsOf(
  sample: readonly WorldFactors[],
  loads: readonly number[],
  taus: readonly number[],
): Record<string, number | null> {
  const scores = loads.map((load) =>
    qualityScore(meanFactors(sample.map((world) => world.get(load) as QualityFactors))),
  );
  return Object.fromEntries([
    ...loads.map((load, index) => [`Q_M@${load}`, scores[index] as number]),
    ...taus.map((tau) => [`EIMC@${tau}`, eimcFromScores(loads, scores, tau)]),
  ]);
}
