import { type ChisEntry, InvalidArgumentError } from '@chi/spec';
import type { DynamicResult } from './dynamic-result';
import { type ChisResponse, responseDistance } from './response-distance';
import {
  type ChisTrajectory,
  type EntryRef,
  entryAtCheckpoint,
  entryRef,
  orderTrajectory,
} from './trajectories';

/**
 * One independently replicated set of histories: `a` and `b` lived different histories, `a2`
 * repeated `a`'s history (the same-history stochastic control).
 */
export interface HistoryTriple {
  /** How results name this replicate (default its position, e.g. `pair 0`). */
  readonly id?: string;
  readonly a: readonly ChisEntry[];
  readonly b: readonly ChisEntry[];
  readonly a2: readonly ChisEntry[];
}

/** Options of {@link experienceDivergence}. */
export interface ExperienceDivergenceOptions {
  /** The checkpoint compared (preregister it: divergence is reported per checkpoint). */
  readonly checkpoint: number;
  /** What is compared (default the decision vector). */
  readonly response?: ChisResponse;
}

/** The corrected difference of one replicate. */
export interface PairDivergence {
  readonly id: string;
  /** D(A, B). */
  readonly differentHistoryDistance: number | null;
  /** D(A, A2). */
  readonly sameHistoryDistance: number | null;
  /** D(A, B) - D(A, A2), or null (then excluded from the mean). */
  readonly value: number | null;
  readonly reason: string | null;
  readonly used: readonly EntryRef[];
}

/** Experience divergence over replicates, with every per-pair value and the exclusions counted. */
export interface ExperienceDivergenceResult extends DynamicResult {
  readonly checkpoint: number;
  readonly pairs: readonly PairDivergence[];
  /** Pairs with a defined value (the mean's denominator). */
  readonly includedPairs: number;
  /** Pairs with a null value, excluded from the mean. */
  readonly excludedPairs: number;
  /** Mean D(A, B) over included pairs. */
  readonly meanDifferentHistoryDistance: number | null;
  /** Mean D(A, A2) over included pairs. */
  readonly meanSameHistoryDistance: number | null;
}

function pairDivergence(
  triple: HistoryTriple,
  id: string,
  checkpoint: number,
  response: ChisResponse,
): PairDivergence {
  const a = entryAtCheckpoint(orderTrajectory(triple.a, `${id}.a`), checkpoint);
  const b = entryAtCheckpoint(orderTrajectory(triple.b, `${id}.b`), checkpoint);
  const a2 = entryAtCheckpoint(orderTrajectory(triple.a2, `${id}.a2`), checkpoint);
  const present = [a, b, a2].filter((entry) => entry !== undefined);
  const empty = {
    id,
    differentHistoryDistance: null,
    sameHistoryDistance: null,
    value: null,
    used: present.map(entryRef),
  };
  if (a === undefined || b === undefined || a2 === undefined) {
    const missing = [
      a === undefined && 'A',
      b === undefined && 'B',
      a2 === undefined && 'A2',
    ].filter(Boolean);
    return {
      ...empty,
      reason: `${id}: no entry at checkpoint ${checkpoint} for ${missing.join(', ')}`,
    };
  }
  const different = responseDistance(a, b, response);
  const same = responseDistance(a, a2, response);
  const result = {
    ...empty,
    differentHistoryDistance: different.value,
    sameHistoryDistance: same.value,
  };
  if (different.value === null)
    return { ...result, reason: `${id}: D(A, B) undefined: ${different.reason}` };
  if (same.value === null)
    return { ...result, reason: `${id}: D(A, A2) undefined: ${same.reason}` };
  return { ...result, value: different.value - same.value, reason: null };
}

/**
 * Experience divergence: how much more two systems with **different** histories differ than two
 * with the **same** history. Per independently replicated triple, D(A, B) - D(A, A2) at the
 * checkpoint (D the mean absolute coordinate difference); the value is the mean over triples whose
 * value is defined. Triples with an invalid coordinate or a missing entry are kept in `pairs` with
 * their reason and counted in `excludedPairs`, never averaged in as zero.
 *
 * Subtracting the same-history distance removes the stochastic floor only approximately: with
 * noise, D(A, B) also shrinks towards |effect| while D(A, A2) stays at the floor, so the corrected
 * difference slightly underestimates a large history effect (see the README). Divergence is not
 * individuality, and it can be damage: a system corrupted by one history diverges too.
 *
 * @example
 * ```ts
 * experienceDivergence(triples, { checkpoint: 3 }).value; // mean over worlds of D(A,B) - D(A,A2)
 * ```
 */
export function experienceDivergence(
  triples: readonly HistoryTriple[],
  options: ExperienceDivergenceOptions,
): ExperienceDivergenceResult {
  if (!Array.isArray(triples)) {
    throw new InvalidArgumentError(
      'triples',
      `expected an array of { a, b, a2 } triples, found ${typeof triples}`,
    );
  }
  const checkpoint = options?.checkpoint;
  if (!Number.isInteger(checkpoint) || checkpoint < 0) {
    throw new InvalidArgumentError(
      'checkpoint',
      `expected a non-negative integer checkpoint, found ${JSON.stringify(checkpoint)}`,
    );
  }
  const response = options.response ?? 'decisionVector';
  const pairs = triples.map((triple, index) =>
    pairDivergence(triple, triple.id ?? `pair ${index}`, checkpoint, response),
  );
  const included = pairs.filter((pair) => pair.value !== null);
  const used = pairs.flatMap((pair) => pair.used);
  const mean = (values: number[]) => values.reduce((sum, x) => sum + x, 0) / values.length;
  const counts = { includedPairs: included.length, excludedPairs: pairs.length - included.length };
  if (included.length === 0) {
    return {
      value: null,
      reason:
        pairs.length === 0
          ? 'no triples given'
          : `no pair has a defined value (${pairs.map((pair) => pair.reason).join('; ')})`,
      used,
      checkpoint,
      pairs,
      ...counts,
      meanDifferentHistoryDistance: null,
      meanSameHistoryDistance: null,
    };
  }
  return {
    value: mean(included.map((pair) => pair.value!)),
    reason: null,
    used,
    checkpoint,
    pairs,
    ...counts,
    meanDifferentHistoryDistance: mean(included.map((pair) => pair.differentHistoryDistance!)),
    meanSameHistoryDistance: mean(included.map((pair) => pair.sameHistoryDistance!)),
  };
}

/** History labels of a triple (defaults: the pilot's `A`, `B`, `A2`). */
export interface HistoryLabels {
  readonly a: string;
  readonly b: string;
  readonly a2: string;
}

/** Triples found among trajectories, and the replicates that could not form one. */
export interface CollectedTriples {
  readonly triples: HistoryTriple[];
  readonly unmatched: { readonly id: string; readonly reason: string }[];
}

/**
 * Forms history triples from grouped trajectories: trajectories of one system, evidence class and
 * world seed with histories A, B and A2 make one triple (id `system/evidence/seed`). Replicates with
 * a missing or repeated history are listed in `unmatched` with the reason, never silently dropped.
 * Trajectories whose history is none of the three labels are ignored.
 */
export function collectHistoryTriples(
  trajectories: readonly ChisTrajectory[],
  labels: HistoryLabels = { a: 'A', b: 'B', a2: 'A2' },
): CollectedTriples {
  const wanted = [labels.a, labels.b, labels.a2];
  const replicates = new Map<string, Map<string, ChisTrajectory[]>>();
  for (const trajectory of trajectories) {
    if (trajectory.history === null || !wanted.includes(trajectory.history)) continue;
    const id = `${trajectory.systemId}/${trajectory.evidenceClass}/${trajectory.worldSeed ?? 'no-seed'}`;
    const byHistory = replicates.get(id) ?? new Map<string, ChisTrajectory[]>();
    replicates.set(id, byHistory);
    byHistory.set(trajectory.history, [...(byHistory.get(trajectory.history) ?? []), trajectory]);
  }
  const triples: HistoryTriple[] = [];
  const unmatched: { id: string; reason: string }[] = [];
  for (const [id, byHistory] of replicates) {
    const problems = wanted.flatMap((label) => {
      const found = byHistory.get(label) ?? [];
      if (found.length === 0) return [`no history ${label}`];
      if (found.length > 1)
        return [
          `${found.length} trajectories with history ${label} (${found.map((t) => t.trajectoryId).join(', ')})`,
        ];
      return [];
    });
    if (problems.length > 0) {
      unmatched.push({ id, reason: problems.join('; ') });
      continue;
    }
    const only = (label: string) => byHistory.get(label)![0]!.entries;
    triples.push({ id, a: only(labels.a), b: only(labels.b), a2: only(labels.a2) });
  }
  return { triples, unmatched };
}
