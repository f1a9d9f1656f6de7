import type { BehaviorObservation, BehaviorTraceLine } from '@chi/analysis';
import { behaviorAnalysis } from '@chi/analysis/internal';
import type { ScorerBlockInput, ScorerBlockResult } from '@chi/experiment';
import { parseTaskReply, scoreBehavior, traceBehaviorItems } from '@chi/scoring';
import type { BehavioralItemSet, ClassifiedTaskAnswer } from '@chi/spec';
import { defineBlockScorer } from '../block-scorer';
import { type BuiltInRecords, blockWorld } from '../built-in-experiment';

function missingTask(id: string, reason: string): ClassifiedTaskAnswer {
  return { id, status: 'missing', answer: null, detail: `no usable reply: ${reason}` };
}

/** The item IDs of one half in presentation order (what a half that gave no reply is scored on). */
function halfIds(itemSet: BehavioralItemSet, half: 1 | 2): string[] {
  return itemSet.items
    .filter((i) => i.half === half)
    .sort((a, b) => a.position - b.position)
    .map((i) => i.id);
}

/**
 * The answers of both halves (the first wording's request of each half), with a `missing` answer
 * for every item of a half without a usable reply, and the requests that gave none.
 */
function blockAnswers(input: ScorerBlockInput<BehavioralItemSet>) {
  const unusable: { requestId: string; reason: string }[] = [];
  const answers: ClassifiedTaskAnswer[] = [];
  for (const half of [1, 2] as const) {
    const request = input.requests.find(
      (r) => r.request.task === 'behavior_half' && r.request.half === half,
    );
    const ids = request === undefined ? null : input.askedIds(request, 'ITEMS');
    const reply = request?.reply ?? null;
    if (reply === null || ids === null) {
      const reason =
        request === undefined ? 'not planned' : (request.unusableReason ?? 'no ITEMS block');
      if (request !== undefined) unusable.push({ requestId: request.request.requestId, reason });
      answers.push(...halfIds(input.world, half).map((id) => missingTask(id, reason)));
      continue;
    }
    answers.push(...parseTaskReply(reply, ids).answers);
  }
  return { answers, unusable };
}

function scoreBehaviorBlock(
  input: ScorerBlockInput<BehavioralItemSet>,
): ScorerBlockResult<BehaviorObservation, BehaviorTraceLine> {
  const { block, systemId, blockComplete, world } = input;
  const { answers, unusable } = blockAnswers(input);
  const where = { systemId, worldSeed: block.worldSeed, blockComplete };
  return {
    observations: [
      {
        kind: 'behavior-observation',
        systemId,
        blockId: block.blockId,
        worldSeed: block.worldSeed,
        blockComplete,
        unusableRequests: unusable,
        score: scoreBehavior(world, answers),
      },
    ],
    traces: traceBehaviorItems(world, answers).map((trace) => ({ ...where, trace })),
  };
}

/**
 * Scores the behavioral probes, block by block: each world's two halves of items (answers read
 * from the ITEMS block the request asked) against the world's item set, per axis accuracy and
 * frame-induced change; its analysis is `behaviorAnalysis` (`@chi/analysis`).
 */
export const behaviorScorer = defineBlockScorer({
  specificationVersion: 'chi-scorer-v1',
  experimentId: 'behavior',
  title: 'Behavioral probes',
  parametersOf: (manifest) => manifest.experiments.behavior ?? null,
  notes: [
    'Per world, the two halves of items against the item set: accuracy per axis and frame-induced change with world-cluster bootstrap intervals (chart-data.json).',
  ],
  blocks: {
    blockExperiments: ['behavior'],
    world: (records: BuiltInRecords, block): BehavioralItemSet =>
      blockWorld(
        records.behaviorItems,
        block.worldSeed,
        block,
        `behavioral items w${block.worldSeed}`,
      ),
    worldFile: (records: BuiltInRecords, block) =>
      records.worldPaths.behaviorWorld(block.worldSeed),
    scoreBlock: scoreBehaviorBlock,
    traceFile: (line: BehaviorTraceLine) => `traces/${line.systemId}/behavior.jsonl`,
  },
  analysis: behaviorAnalysis,
});
