/**
 * A synthetic, pilot-shaped dataset and the pilot's primary statistic, shared by the integration
 * test and the benchmark. Simulated factors: never results.
 *
 * Shape: worlds x systems x loads x factors, one row per world, columns ordered
 * `((system * loads + load) * factors + factor)`. The six factors are r, t, s, u, i and 1 - f;
 * each is passes / 8 (eight probes per stratum), so every value is a multiple of 1/8 and every
 * sum of them is exact in binary: both bootstrap paths then agree bit for bit.
 */
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { WeightedMeansStatistic } from '../src/index.js';

export interface PilotShape {
  readonly worlds: number;
  readonly systems: number;
  readonly loads: readonly number[];
  readonly factors: number;
}

/** The pilot: 50 worlds x 4 systems x N = 32, 64, 128, 256 x 6 factors. */
export const PILOT_SHAPE: PilotShape = {
  worlds: 50,
  systems: 4,
  loads: [32, 64, 128, 256],
  factors: 6,
};

/** Row width: systems x loads x factors. */
export function pilotWidth(shape: PilotShape): number {
  return shape.systems * shape.loads.length * shape.factors;
}

// Per-system pass probability at the smallest load and its drop per load step: one system passes
// every load (right-censored EIMC), two cross 0.8 inside the grid (one of them near N = 256), and
// one hovers at 0.8 at N = 32, so its EIMC is undefined (no passing load) in part of the replicates.
const BASE = [0.99, 0.93, 0.88, 0.8];
const DROP = [0.01, 0.045, 0.06, 0.05];

/** One factor vector per world (values k / 8), deterministic in `seed`. */
export function generatePilotRows(shape: PilotShape, seed: number): number[][] {
  const rng = xoroshiro128plus(seed);
  rng.jump();
  return Array.from({ length: shape.worlds }, () => {
    const worldEffect = (uniformFloat64(rng) - 0.5) * 0.1;
    const row: number[] = [];
    for (let system = 0; system < shape.systems; system++) {
      for (let load = 0; load < shape.loads.length; load++) {
        const base = BASE[system % BASE.length] as number;
        const drop = DROP[system % DROP.length] as number;
        const probability = Math.min(0.999, Math.max(0.02, base - drop * load + worldEffect));
        for (let factor = 0; factor < shape.factors; factor++) {
          let passes = 0;
          for (let probe = 0; probe < 8; probe++) if (uniformFloat64(rng) < probability) passes++;
          row.push(passes / 8);
        }
      }
    }
    return row;
  });
}

/** Statistic names: Q_M per system and load, then EIMC_0.8 per system. */
export function pilotStatisticNames(shape: PilotShape, tau = 0.8): string[] {
  const names: string[] = [];
  for (let system = 0; system < shape.systems; system++) {
    for (const load of shape.loads) names.push(`Q_M system-${system} N=${load}`);
  }
  for (let system = 0; system < shape.systems; system++) names.push(`EIMC_${tau} system-${system}`);
  return names;
}

/**
 * Q_M = (r * t * s * u * i * (1 - f))^(1/6) of the world-mean factors for every system and load,
 * then EIMC_tau per system: the largest tested load whose Q_M >= tau, NaN (undefined) if none.
 * Allocates nothing per call.
 */
export function createPilotStatistic(shape: PilotShape, tau = 0.8): WeightedMeansStatistic {
  const loadCount = shape.loads.length;
  const exponent = 1 / shape.factors;
  return (means, out) => {
    for (let system = 0; system < shape.systems; system++) {
      let passing = -1;
      for (let load = 0; load < loadCount; load++) {
        const cell = system * loadCount + load;
        let product = 1;
        for (let factor = 0; factor < shape.factors; factor++) {
          product *= means[cell * shape.factors + factor] as number;
        }
        const qualityScore = product ** exponent;
        out[cell] = qualityScore;
        if (qualityScore >= tau) passing = load;
      }
      out[shape.systems * loadCount + system] =
        passing < 0 ? Number.NaN : (shape.loads[passing] as number);
    }
  };
}
