import type { RunScores } from '@chi/analysis';
import { BootstrapRegistry, isBehaviorObservation, observationsOf } from '@chi/analysis';
import type { WordingAgreement } from '@chi/analysis/internal';
import { plannedWorlds, ratio } from '@chi/analysis/internal';
import { outcomesFromAttemptLog, type RequestOutcome } from '@chi/run';
import { jsonBlockIds, usableReply } from '@chi/run/internal';
import { parseTaskReply, scoreBehavior, traceBehaviorItems } from '@chi/scoring';
import type {
  BehavioralItemSet,
  ClassifiedTaskAnswer,
  PlannedRequest,
  RunManifest,
} from '@chi/spec';
import { groupRequestOrdinals, requestsAt } from '../run-folder/plan-view';
import type { RunRecords } from '../run-folder/run-folder';

/** The behavioral features whose wording agreement a release reports, in report order. */
export const WORDING_FEATURES = ['R', 'C', 'A', 'I', 'A-frame-change'] as const;
type Feature = (typeof WORDING_FEATURES)[number];

/** Agreeing and paired counts of one feature in one world. */
interface Count {
  readonly agree: number;
  readonly paired: number;
}

/** One system's paired counts in one world, per feature. */
type WorldAgreement = Readonly<Record<Feature, Count>>;

/** The answers of one wording's two halves, with a missing answer for what was not answered. */
function wordingAnswers(
  records: RunRecords,
  outcomes: ReadonlyMap<string, RequestOutcome>,
  itemSet: BehavioralItemSet,
  requests: readonly PlannedRequest[],
): ClassifiedTaskAnswer[] {
  return ([1, 2] as const).flatMap((half) => {
    const request = requests.find((r) => r.half === half);
    const itemIds = itemSet.items.filter((i) => i.half === half).map((i) => i.id);
    const missing = (reason: string) =>
      itemIds.map(
        (id): ClassifiedTaskAnswer => ({
          id,
          status: 'missing',
          answer: null,
          detail: `no usable reply: ${reason}`,
        }),
      );
    if (request === undefined) return missing('not planned');
    const reply = usableReply(
      outcomes.get(request.requestId) ?? { kind: 'not_sent', reason: 'no attempt recorded' },
    );
    if (reply.kind !== 'reply') return missing(reply.reason);
    const rendered = records.requests.get(request.requestId);
    const user = rendered?.messages.find((m) => m.role === 'user')?.content ?? '';
    const ids = jsonBlockIds(user, 'ITEMS');
    if (ids === undefined) return missing('no ITEMS block');
    return [...parseTaskReply(reply.text, ids).answers];
  });
}

/** Verdict agreement per axis and frame-change agreement per pair, between two answer sets. */
function agreementOf(
  itemSet: BehavioralItemSet,
  first: readonly ClassifiedTaskAnswer[],
  second: readonly ClassifiedTaskAnswer[],
): WorldAgreement {
  const verdicts = new Map(
    traceBehaviorItems(itemSet, second).map((trace) => [trace.itemId, trace.verdict]),
  );
  const firstTraces = traceBehaviorItems(itemSet, first);
  const axis = (name: 'R' | 'C' | 'A' | 'I'): Count => {
    const items = firstTraces.filter((trace) => trace.axis === name);
    return {
      agree: items.filter((trace) => verdicts.get(trace.itemId) === trace.verdict).length,
      paired: items.length,
    };
  };
  const changes = new Map(
    scoreBehavior(itemSet, second).frameInducedChange.pairs.map((p) => [p.pairId, p.changed]),
  );
  const pairs = scoreBehavior(itemSet, first).frameInducedChange.pairs.filter(
    (pair) => pair.changed !== null && (changes.get(pair.pairId) ?? null) !== null,
  );
  return {
    R: axis('R'),
    C: axis('C'),
    A: axis('A'),
    I: axis('I'),
    'A-frame-change': {
      agree: pairs.filter((pair) => changes.get(pair.pairId) === pair.changed).length,
      paired: pairs.length,
    },
  };
}

/** Every system's per-world agreement over its complete behavior blocks, by system then seed. */
function worldAgreements(
  records: RunRecords,
  scores: RunScores,
): Map<string, Map<number, WorldAgreement>> {
  const outcomes = outcomesFromAttemptLog(records.attempts);
  // ordinals, not requests: a unit's requests are parsed when its world is reached
  const byUnit = groupRequestOrdinals(records.plan, (request) =>
    request.task === 'behavior_half' ? `${request.systemId}|${request.blockId}` : null,
  );
  const result = new Map<string, Map<number, WorldAgreement>>();
  for (const observation of observationsOf(scores, 'behavior', isBehaviorObservation)) {
    if (!observation.blockComplete) continue;
    const requests = requestsAt(
      records.plan,
      byUnit.get(`${observation.systemId}|${observation.blockId}`),
    );
    const second = requests.filter((r) => r.wording === 2);
    const itemSet = records.behaviorItems.get(observation.worldSeed);
    if (second.length === 0 || itemSet === undefined) continue;
    const first = requests.filter((r) => r.wording === undefined);
    const answers = (list: PlannedRequest[]) => wordingAnswers(records, outcomes, itemSet, list);
    const perWorld = result.get(observation.systemId) ?? new Map<number, WorldAgreement>();
    perWorld.set(observation.worldSeed, agreementOf(itemSet, answers(first), answers(second)));
    result.set(observation.systemId, perWorld);
  }
  return result;
}

/** True when a run asks the behavioral items under a second wording. */
export function asksSecondWording(manifest: RunManifest): boolean {
  return manifest.experiments.behavior?.wordings === 2;
}

/**
 * Per-feature agreement between the two declared wordings of the behavioral items, per system
 * (manifest order) and feature: the mean over worlds of each world's share of agreeing paired
 * items, with a world-cluster bootstrap interval (a world's two wordings are resampled together,
 * so the pairing is kept). Its own bootstrap with the recorded analysis seed, so the run's other
 * estimates do not move. Empty when the run asks one wording. Pure: `chi verify` recomputes it.
 */
export function wordingAgreementRows(records: RunRecords, scores: RunScores): WordingAgreement[] {
  if (!asksSecondWording(records.manifest)) return [];
  const agreements = worldAgreements(records, scores);
  const registry = new BootstrapRegistry(
    plannedWorlds(
      records.manifest.worldSeeds,
      observationsOf(scores, 'behavior', isBehaviorObservation),
    ),
  );
  const planned = scores.blocks.filter((b) => b.experiment === 'behavior').length;
  const cells = records.manifest.systems.flatMap((system) => {
    const perWorld = agreements.get(system.id);
    if (perWorld === undefined) return [];
    return WORDING_FEATURES.map((feature) => {
      const seeds = [...perWorld.keys()]
        .filter((seed) => (perWorld.get(seed)?.[feature].paired ?? 0) > 0)
        .sort((a, b) => a - b);
      const count = (seed: number) => perWorld.get(seed)?.[feature] as Count;
      const estimand = registry.define(
        `w|${system.id}|${feature}`,
        registry.meanOf(new Set(seeds), (seed) => count(seed).agree / count(seed).paired),
      );
      const pooled = ratio(
        seeds.reduce((sum, seed) => sum + count(seed).agree, 0),
        seeds.reduce((sum, seed) => sum + count(seed).paired, 0),
      );
      const counts = { used: seeds.length, complete: perWorld.size, planned };
      return { systemId: system.id, feature, estimand, pooled, seeds, counts };
    });
  });
  const results = registry.run(records.manifest.analysis);
  return cells.map((cell) => ({
    systemId: cell.systemId,
    feature: cell.feature,
    agreement: results.interval(cell.estimand, cell.counts),
    pooled: cell.pooled,
    worldSeeds: cell.seeds,
  }));
}
