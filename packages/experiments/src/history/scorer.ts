import type { HistoryObservation, HistoryTraceLine } from '@chi/analysis';
import { historyAnalysis } from '@chi/analysis/internal';
import type { ScorerBlockInput, ScorerBlockResult, ScorerRequest } from '@chi/experiment';
import { scoreHistory, traceHistoryDecisions } from '@chi/scoring';
import type { Decision, HistoryId, HistoryWorld } from '@chi/spec';
import { defineBlockScorer } from '../block-scorer';
import { type BuiltInRecords, blockWorld } from '../built-in-experiment';
import { readHistoryProbe, type UsableReply } from './probe-reading';

const CHECKPOINTS = [0, 1, 2, 3, 4] as const;

/** A scorer request's reply in the form `readHistoryProbe` reads (`usableReply` of `@chi/run`). */
function usableOf(request: ScorerRequest): UsableReply {
  return request.reply !== null
    ? { kind: 'reply', text: request.reply }
    : { kind: 'unusable', reason: request.unusableReason ?? 'not sent' };
}

/**
 * The decisions of one history at every checkpoint (`invalid` for every environment of a probe
 * that was not planned or gave no usable reply), noting each probe that gave none.
 */
function historyGrid(
  input: ScorerBlockInput<HistoryWorld>,
  history: HistoryId,
  unusable: { requestId: string; reason: string }[],
): Decision[][] {
  return CHECKPOINTS.map((checkpoint) => {
    const request = input.requests.find(
      ({ request: r }) =>
        r.task === 'history_probe' && r.history === history && r.checkpoint === checkpoint,
    );
    if (request === undefined) return input.world.environments.map(() => 'invalid' as const);
    const reading = readHistoryProbe(
      usableOf(request),
      input.askedIds(request, 'QUESTIONS'),
      input.world,
    );
    if (reading.unusableReason !== null)
      unusable.push({ requestId: request.request.requestId, reason: reading.unusableReason });
    return [...reading.decisions];
  });
}

function scoreHistoryBlock(
  input: ScorerBlockInput<HistoryWorld>,
): ScorerBlockResult<HistoryObservation, HistoryTraceLine> {
  const { block, systemId, blockComplete, world } = input;
  const unusable: { requestId: string; reason: string }[] = [];
  const decisions = {
    A: historyGrid(input, 'A', unusable),
    B: historyGrid(input, 'B', unusable),
    A2: historyGrid(input, 'A2', unusable),
  };
  const observations = { validAnswers: world.validAnswers, decisions };
  const where = { systemId, worldSeed: block.worldSeed, blockComplete };
  return {
    observations: [
      {
        kind: 'history-observation',
        systemId,
        blockId: block.blockId,
        worldSeed: block.worldSeed,
        blockComplete,
        unusableRequests: unusable,
        decisions,
        score: scoreHistory(observations),
      },
    ],
    traces: traceHistoryDecisions(observations).map((trace) => ({ ...where, trace })),
  };
}

/**
 * Scores the history experiment, block by block: each world's probes of histories A, B and A2 at
 * checkpoints 0-4 read into decisions against the world's valid answers, with accuracy,
 * divergence, continuity and correction response; its analysis is `historyAnalysis`
 * (`@chi/analysis`).
 */
export const historyScorer = defineBlockScorer({
  specificationVersion: 'chi-scorer-v1',
  experimentId: 'history',
  title: 'History experiment',
  parametersOf: (manifest) => manifest.experiments.history ?? null,
  notes: [
    "Decisions per history (A, B, A2) and checkpoint against the world's valid answers: accuracy, divergence, continuity and correction response with world-cluster bootstrap intervals (chart-data.json).",
  ],
  blocks: {
    blockExperiments: ['history'],
    world: (records: BuiltInRecords, block): HistoryWorld =>
      blockWorld(
        records.historyWorlds,
        block.worldSeed,
        block,
        `history world w${block.worldSeed}`,
      ),
    worldFile: (records: BuiltInRecords, block) => records.worldPaths.historyWorld(block.worldSeed),
    scoreBlock: scoreHistoryBlock,
    traceFile: (line: HistoryTraceLine) => `traces/${line.systemId}/history.jsonl`,
  },
  analysis: historyAnalysis,
});
