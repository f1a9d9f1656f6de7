import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  analyzeDivergence,
  DIVERGENCE_DYNAMICS,
  DIVERGENCE_SERIES,
  type DivergenceAnalysis,
  type DivergenceEstimate,
  type DivergenceSeries,
  formatEstimate,
} from './analyze';
import type { DivergenceCallRecord } from './calls';
import { compareDivergenceRelease } from './release';
import { divergencePaths, recomputeDivergence, runDivergenceProtocol } from './run';
import { divergenceEntries } from './score';
import {
  DIVERGENCE_SYSTEM_NAMES,
  DIVERGENCE_SYSTEMS,
  scriptedDivergenceInstance,
} from './scripted-divergence';

// One offline run of the protocol with 16 worlds, shared by every assertion below: the scripted
// systems' true dynamics are known by construction (docs/protocol.md derives them), and the
// release must recover them within its own bootstrap error (the pointwise 95% interval).
const WORLDS = 16;
let root: string;
let runDir: string;
let analysis: DivergenceAnalysis;
let calls: DivergenceCallRecord[];
let manifestWrittenBeforeFirstCall = false;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'chi-divergence-'));
  runDir = join(root, 'run');
  let first = true;
  const result = await runDivergenceProtocol({
    runDir,
    worlds: WORLDS,
    resamples: 1000,
    now: () => new Date('2026-09-01T00:00:00.000Z'),
    modelFor: (system, blockId) => {
      if (first) manifestWrittenBeforeFirstCall = existsSync(divergencePaths(runDir).manifest);
      first = false;
      return scriptedDivergenceInstance(system, blockId);
    },
  });
  analysis = result.analysis;
  calls = (await recomputeDivergence(runDir)).calls;
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function series(system: string, name: DivergenceSeries, checkpoint: number): DivergenceEstimate {
  const found = analysis.systems
    .find((candidate) => candidate.systemId === system)
    ?.trajectory.find((point) => point.checkpoint === checkpoint)?.series[name];
  if (found === undefined) throw new Error(`no ${name} at ${checkpoint} for ${system}`);
  return found;
}

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

type Known = Readonly<Record<string, number>>;
const STATELESS_DYNAMICS: Known = {
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
const FOLLOWER_DYNAMICS: Known = {
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
const HIDDEN_DYNAMICS: Known = {
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
function expectedSeries(system: string, name: DivergenceSeries, checkpoint: number): number {
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

const EXPECTED_DYNAMICS: Readonly<Record<string, Known>> = {
  stateless: STATELESS_DYNAMICS,
  'notebook-follower': FOLLOWER_DYNAMICS,
  'hidden-state': HIDDEN_DYNAMICS,
};

/**
 * Whether the simultaneous band of the cell's family holds the derived value. The tolerance is the
 * family-wise band, not the pointwise interval: with about 50 cells per family, pointwise 95 %
 * intervals would miss a true value somewhere by chance (the stateless sham arm at checkpoint 2
 * did, issue 31), while the simultaneous band holds every cell with probability 0.95 together.
 * A cell without spread (an exact 0) must equal its derived value to 1e-9.
 */
function holds(estimate: DivergenceEstimate, value: number): boolean {
  if (estimate.simultaneousLower === null || estimate.simultaneousUpper === null) return false;
  return estimate.simultaneousLower - 1e-9 <= value && value <= estimate.simultaneousUpper + 1e-9;
}

const systemOf = (id: string) => analysis.systems.find((candidate) => candidate.systemId === id);
const dynamic = (system: string, name: string) =>
  systemOf(system)?.dynamics.find((d) => d.name === name)?.value;

describe('known truth: every series, arm and dynamic at its derived value', () => {
  for (const system of DIVERGENCE_SYSTEM_NAMES) {
    it(`${system}: every series at every checkpoint inside its simultaneous band`, () => {
      const misses: string[] = [];
      for (const name of DIVERGENCE_SERIES)
        for (let checkpoint = 0; checkpoint <= 6; checkpoint++) {
          const expected = expectedSeries(system, name, checkpoint);
          const found = series(system, name, checkpoint);
          if (!holds(found, expected))
            misses.push(`${name}@${checkpoint}: ${expected} not in ${formatEstimate(found)}`);
        }
      expect(misses).toEqual([]);
    });

    it(`${system}: every dynamic inside its simultaneous band`, () => {
      const misses: string[] = [];
      for (const [name, expected] of Object.entries(EXPECTED_DYNAMICS[system] as Known)) {
        const found = dynamic(system, name);
        if (system === 'hidden-state' && name === 'recovery') {
          // Defined only where a probe flip made D(4, 5) > 0: probability 1 - (1 - 2p(1-p))^4 =
          // 0.33 per world, so about 5 of 16 worlds, each value near 0 or 1 (which of the two
          // probes flipped). Too few worlds for any interval to be a tolerance: the count is the
          // claim tested here, the value is derived in docs/protocol.md.
          expect(found?.worlds).toBeLessThan(WORLDS / 2);
          continue;
        }
        if (found === undefined || !holds(found, expected))
          misses.push(`${name}: ${expected} not in ${found ? formatEstimate(found) : 'missing'}`);
      }
      expect(misses).toEqual([]);
    });
  }

  it('the derived values are not the noise: follower and hidden state differ from the stateless', () => {
    // A test that the coin flipper passes cannot tell a learner from noise (issue 31): each
    // history-dependence excess the follower and hidden state carry is far from the stateless 0.
    for (const name of ['experienceDivergence', 'plasticity', 'hysteresis', 'drift'])
      for (const system of ['notebook-follower', 'hidden-state']) {
        expect(EXPECTED_DYNAMICS[system]?.[name]).toBeGreaterThan(0.25);
        expect(dynamic(system, name)?.simultaneousLower).toBeGreaterThan(0);
        expect(dynamic('stateless', name)?.simultaneousLower).toBeLessThanOrEqual(0);
      }
    expect(FOLLOWER_DYNAMICS.continuity).toBeGreaterThan(0.2);
    expect(dynamic('notebook-follower', 'continuity')?.simultaneousLower).toBeGreaterThan(0);
    // Decay in washout: the follower's checkpoint-1 band lies above its checkpoint-4 band.
    expect(series('notebook-follower', 'excess', 1).simultaneousLower).toBeGreaterThan(
      series('notebook-follower', 'excess', 4).simultaneousUpper as number,
    );
  });

  it('reports every dynamic per system with its definition, null only with a reason', () => {
    for (const system of analysis.systems) {
      expect(system.dynamics.map((d) => d.name)).toEqual([...DIVERGENCE_DYNAMICS]);
      expect(system.familyWise.grid.familySize).toBeGreaterThan(0);
      for (const entry of system.dynamics) {
        expect(entry.definition.length).toBeGreaterThan(0);
        if (entry.value.estimate === null) expect(entry.value.reason).not.toBeNull();
      }
    }
    // The same estimate and pointwise interval; the simultaneous band is its family's (dynamics).
    const { estimate, lower, upper } = series('notebook-follower', 'excess', 6);
    expect(dynamic('notebook-follower', 'experienceDivergence')).toMatchObject({
      estimate,
      lower,
      upper,
    });
  });
});

describe('divergence protocol, offline, scripted systems with known dynamics', () => {
  it('freezes the manifest, with the primary checkpoint, before the first request', () => {
    expect(manifestWrittenBeforeFirstCall).toBe(true);
    const manifest = JSON.parse(readFileSync(divergencePaths(runDir).manifest, 'utf8'));
    expect(manifest.experiments.divergence.primaryCheckpoint).toBe(6);
    const attempts = readFileSync(divergencePaths(runDir).attempts, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { manifestSha256: string });
    expect(attempts.every((record) => record.manifestSha256 === analysis.manifestSha256)).toBe(
      true,
    );
    const plan = JSON.parse(readFileSync(divergencePaths(runDir).plan, 'utf8'));
    expect(calls.length).toBe(plan.requests.length);
    expect(calls.length).toBe(WORLDS * 3 * 287);
  });

  it('reads the primary checkpoint from the manifest, not from code', async () => {
    const { manifest, manifestSha256 } = await recomputeDivergence(runDir);
    const moved = {
      ...manifest,
      primaryCheckpoint: 3,
      analysis: { ...manifest.analysis, resamples: 50 },
    };
    const reanalyzed = analyzeDivergence(moved, manifestSha256, divergenceEntries(moved, calls));
    expect(reanalyzed.primaryCheckpoint).toBe(3);
    const follow = reanalyzed.systems.find((s) => s.systemId === 'notebook-follower');
    expect(follow?.dynamics.find((d) => d.name === 'experienceDivergence')?.value.estimate).toBe(
      series('notebook-follower', 'excess', 3).estimate,
    );
  });

  it('erasure and sham erasure send byte-identical operation requests', () => {
    const operation = (arm: string) =>
      calls.filter((call) => call.arm === arm && call.role === 'operation');
    const erase = operation('A.erase');
    const sham = operation('A.sham');
    expect(erase.length).toBe(WORLDS * 3);
    expect(erase.map((call) => call.requestSha256)).toEqual(sham.map((call) => call.requestSha256));
    expect(erase.every((call) => call.notebookAfter.bytes === 0)).toBe(true);
    expect(sham.every((call) => call.notebookAfter.bytes > 0)).toBe(true);
  });

  it("the swap arms continue from each other's notebook, recorded on the next call", () => {
    const worldSeeds = [...new Set(calls.map((call) => call.worldSeed))];
    for (const [system, worldSeed] of ['notebook-follower', 'hidden-state'].flatMap((system) =>
      worldSeeds.map((seed) => [system, seed] as const),
    )) {
      for (const [arm, partner] of [
        ['A.swap', 'B.swap'],
        ['B.swap', 'A.swap'],
      ]) {
        const of = (id: string) =>
          calls.filter(
            (call) => call.systemId === system && call.arm === id && call.worldSeed === worldSeed,
          );
        const partnerAfterExposure = of(partner as string)
          .filter((call) => call.checkpoint === 1)
          .at(-1);
        const firstAfterSwap = of(arm as string).find((call) => call.checkpoint === 2);
        expect(firstAfterSwap?.operations).toEqual(['swap']);
        expect(firstAfterSwap?.notesShownSha256).toBe(partnerAfterExposure?.notebookAfter.sha256);
        expect(partnerAfterExposure?.notebookAfter.sha256).not.toBe(
          of(arm as string)
            .filter((call) => call.checkpoint === 1)
            .at(-1)?.notebookAfter.sha256,
        );
      }
    }
  });

  it('chi verify recomputes the release byte for byte, and notices an edited reply', async () => {
    const release = divergencePaths(runDir).releaseDir;
    const recomputed = await recomputeDivergence(release);
    expect(await compareDivergenceRelease(release, recomputed)).toEqual([]);
    const log = join(release, 'attempts.jsonl');
    const lines = readFileSync(log, 'utf8').split('\n');
    const index = lines.findIndex(
      (line) =>
        line.includes('"phase":"after_response"') &&
        line.includes('"requestId":"notebook-follower.divergence.') &&
        line.includes('.c6.probe.'),
    );
    const edited = JSON.parse(lines[index] as string) as {
      result: { text: string | null };
    };
    const flipped = JSON.parse(edited.result.text ?? '[]') as { id: string; answer: string }[];
    lines[index] = JSON.stringify({
      ...edited,
      result: {
        ...edited.result,
        text: JSON.stringify(flipped.map((a) => ({ ...a, answer: 'unknown' }))),
      },
    });
    writeFileSync(log, lines.join('\n'));
    const tampered = await recomputeDivergence(release);
    const mismatches = await compareDivergenceRelease(release, tampered);
    expect(mismatches.map((m) => m.file)).toContain('divergence.json');
  });
});
