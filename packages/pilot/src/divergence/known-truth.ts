import type { DivergenceSeries } from './analyze';
import { DIVERGENCE_SYSTEMS } from './scripted-divergence';

// The true values of the scripted divergence systems, derived in docs/protocol.md ("Scripted
// systems with known dynamics" and the noise-floor subsection); known-dynamics.test.ts asserts
// that a run recovers them and `npm run coverage` measures how often the intervals contain them.
// The derived values (docs/protocol.md, "Scripted systems with known dynamics"): p is the probe
// flip, lambda the washout decay, r = (1 - lambda)^k the retention after k washout updates.
const P = DIVERGENCE_SYSTEMS['notebook-follower'].probeFlip;
const LAMBDA = DIVERGENCE_SYSTEMS['notebook-follower'].interferenceForget;
const WASHOUT_UPDATES_BY_CHECKPOINT = [0, 0, 1, 2, 3, 3, 3];
const retention = (checkpoint: number) =>
  (1 - LAMBDA) ** (WASHOUT_UPDATES_BY_CHECKPOINT[checkpoint] as number);
const R = retention(6);
/** E D between two holders of opposite beliefs retained with r: different-history distance. */
const dDiff = (r: number) => r * r * ((1 - P) ** 2 + P ** 2) + r * (1 - r);
/** E D between two holders of the same belief retained with r: same-history distance. */
const dSame = (r: number) => 2 * r * r * P * (1 - P) + r * (1 - r);
const excessOf = (r: number) => dDiff(r) - dSame(r); // = r^2 (1 - 2p)^2

type Dist = readonly (readonly [number, number])[]; // [value, probability]
/** E|(Y - X) - (V - U)| over independent coordinates X, Y, U, V (exact enumeration). */
function meanAbsDid(x: Dist, y: Dist, u: Dist, v: Dist): number {
  let sum = 0;
  for (const [xv, xp] of x)
    for (const [yv, yp] of y)
      for (const [uv, up] of u)
        for (const [vv, vp] of v) sum += xp * yp * up * vp * Math.abs(yv - xv - (vv - uv));
  return sum;
}
/**
 * Plasticity with retention r at the checkpoint before the correction: before, a coordinate is
 * held (own direction 0, flipped with p) with r, else unknown 0.5; after, the correction arm holds
 * the reversed belief (1, flipped with p) and the matched arm the confirmed one (0).
 */
function plasticityOf(r: number): { raw: number; floor: number; excess: number } {
  const before: Dist = [
    [0, r * (1 - P)],
    [1, r * P],
    [0.5, 1 - r],
  ];
  const corrected: Dist = [
    [1, 1 - P],
    [0, P],
  ];
  const matched: Dist = [
    [0, 1 - P],
    [1, P],
  ];
  const raw = meanAbsDid(before, corrected, before, matched);
  const floor =
    (meanAbsDid(before, corrected, before, corrected) +
      meanAbsDid(before, matched, before, matched)) /
    2;
  return { raw, floor, excess: raw - floor };
}
/**
 * Recovery E[1 - D(4, 6) / D(4, 5) | D(4, 5) > 0] over four independent coordinates, each with a
 * joint law of (x4, x5, x6) (exact enumeration; a world with D(4, 5) = 0 has no recovery value).
 */
function recoveryOf(coordinate: readonly (readonly [number, number, number, number])[]): number {
  let defined = 0;
  let sum = 0;
  const walk = (depth: number, p: number, d45: number, d46: number) => {
    if (depth === 4) {
      if (d45 > 0) {
        defined += p;
        sum += p * (1 - d46 / d45);
      }
      return;
    }
    for (const [x4, x5, x6, q] of coordinate)
      walk(depth + 1, p * q, d45 + Math.abs(x4 - x5), d46 + Math.abs(x4 - x6));
  };
  walk(0, 1, 0, 0);
  return sum / defined;
}
const flips = (value: number): Dist => [
  [value, 1 - P],
  [1 - value, P],
];
function joint(
  x4: Dist,
  x5: Dist,
  x6: Dist,
  weight = 1,
): (readonly [number, number, number, number])[] {
  return x4.flatMap(([a, pa]) =>
    x5.flatMap(([b, pb]) => x6.map(([c, pc]) => [a, b, c, weight * pa * pb * pc] as const)),
  );
}
const coin: Dist = [
  [0, 0.5],
  [1, 0.5],
];
/** Least-squares slope of expected washoutKnown (share of 3) over events 0..6. */
function slopeOf(known: readonly number[]): number {
  const y = known.map((held) => (held * (1 - P)) / 3);
  const mx = 3;
  const my = y.reduce((a, b) => a + b, 0) / y.length;
  const num = y.reduce((sum, value, x) => sum + (x - mx) * (value - my), 0);
  return num / y.reduce((sum, _, x) => sum + (x - mx) ** 2, 0);
}
/** Expected washout choices held per checkpoint: one ingested per washout checkpoint, decaying. */
const heldWashout = (decay: number) => {
  const settled = 1 + decay + decay ** 2;
  return [0, 0, 1, 1 + decay, settled, settled, settled];
};

/** Derived true values by name. */
export type Known = Readonly<Record<string, number>>;
/** The stateless system's derived dynamics. */
export const STATELESS_DYNAMICS: Known = {
  experienceDivergence: 0,
  continuity: 0,
  continuityRaw: 0.5,
  continuityFloor: 0.5,
  drift: 0,
  driftRaw: 0.5,
  driftFloor: 0.5,
  stability: 0.5 / Math.SQRT2,
  recovery: recoveryOf(joint(coin, coin, coin)),
  plasticity: 0,
  plasticityRaw: plasticityOfCoins(),
  plasticityFloor: plasticityOfCoins(),
  hysteresis: 0,
  hysteresisRaw: 0.5,
  hysteresisFloor: 0.5,
  memoryAccumulation: 0,
};
function plasticityOfCoins(): number {
  return meanAbsDid(coin, coin, coin, coin);
}
const followerHeld = heldWashout(1 - LAMBDA);
/** The notebook follower's derived dynamics. */
export const FOLLOWER_DYNAMICS: Known = {
  experienceDivergence: excessOf(R),
  continuity: R * (1 - R) * (1 - 2 * P * (1 - P)),
  continuityRaw: 1 - 2 * R * P * (1 - P),
  continuityFloor: 1 - dSame(R),
  drift: 0.5 * R,
  driftRaw: 0.5 * R,
  driftFloor: 0,
  stability: (2 * R * P * (1 - P)) / Math.SQRT2,
  recovery: recoveryOf([
    ...joint(flips(0), [[0.5, 1]], flips(0), R),
    [0.5, 0.5, 0.5, 1 - R] as const,
  ]),
  plasticity: plasticityOf(R).excess,
  plasticityRaw: plasticityOf(R).raw,
  plasticityFloor: plasticityOf(R).floor,
  hysteresis: excessOf(R),
  hysteresisRaw: dDiff(R),
  hysteresisFloor: dSame(R),
  memoryAccumulation: slopeOf(followerHeld),
};
/** The hidden-state system's derived dynamics. */
export const HIDDEN_DYNAMICS: Known = {
  experienceDivergence: excessOf(1),
  continuity: 0,
  continuityRaw: 1 - 2 * P * (1 - P),
  continuityFloor: 1 - dSame(1),
  drift: 0.5,
  driftRaw: 0.5,
  driftFloor: 0,
  stability: (2 * P * (1 - P)) / Math.SQRT2,
  recovery: recoveryOf(joint(flips(0), flips(0), flips(0))),
  plasticity: plasticityOf(1).excess,
  plasticityRaw: plasticityOf(1).raw,
  plasticityFloor: plasticityOf(1).floor,
  hysteresis: excessOf(1),
  hysteresisRaw: dDiff(1),
  hysteresisFloor: dSame(1),
  memoryAccumulation: slopeOf([0, 0, 1, 2, 3, 3, 3]),
};

/** The derived value of a series at a checkpoint (docs/protocol.md). */
export function expectedSeries(system: string, name: DivergenceSeries, checkpoint: number): number {
  if (system === 'stateless')
    return name === 'differentHistory' || name === 'sameHistory' ? 0.5 : 0;
  if (checkpoint === 0) return 0;
  const hidden = system === 'hidden-state';
  const r = hidden ? 1 : retention(checkpoint);
  const e = excessOf(r);
  switch (name) {
    case 'differentHistory':
      return dDiff(r);
    case 'sameHistory':
      return dSame(r);
    case 'excess':
    case 'shamExcess':
    case 'swapExcess':
      return e;
    case 'eraseExcess':
      // the exposure probe precedes the erasure; after it the follower's notebooks are empty
      return hidden || checkpoint === 1 ? e : 0;
    case 'swapFollowsState':
      // before the swap (checkpoint 1) every instance follows its own history
      return hidden || checkpoint === 1 ? -e : e;
  }
}

/** Every scripted system's derived dynamics, by system id. */
export const EXPECTED_DYNAMICS: Readonly<Record<string, Known>> = {
  stateless: STATELESS_DYNAMICS,
  'notebook-follower': FOLLOWER_DYNAMICS,
  'hidden-state': HIDDEN_DYNAMICS,
};
