import type { MemoryObservation, MemoryTraceLine } from '@chi/analysis';
import type { MemoryCondition } from '@chi/analysis/internal';
import { memoryAnalysis } from '@chi/analysis/internal';
import type { ScorerBlockInput, ScorerBlockResult } from '@chi/experiment';
import {
  parseProbeReply,
  type RecordIndex,
  scoreMemoryProbes,
  traceMemoryProbes,
} from '@chi/scoring';
import { indexRecords } from '@chi/scoring/internal';
import type { MemoryWorld, ParsedProbeReply, PlannedRequest } from '@chi/spec';
import type { ClassifiedAnswer } from '@chi/spec/internal';
import { defineBlockScorer } from '../block-scorer';
import { type BuiltInRecords, blockWorld, memoryFileKey } from '../built-in-experiment';

/** A memory world with its validated record index, built once per block for every system. */
export interface IndexedMemoryWorld {
  readonly world: MemoryWorld;
  readonly index: RecordIndex;
}

type Unusable = { requestId: string; reason: string };

function missingProbe(id: string, reason: string): ClassifiedAnswer {
  return { id, status: 'missing', value: null, source: null, detail: `no usable reply: ${reason}` };
}

/** True for the probe requests of a memory block (the notebook and control conditions). */
export function isMemoryProbe(request: PlannedRequest): boolean {
  return request.task === 'memory_probe' || request.task === 'memory_probe_oracle';
}

/** The probe replies of one condition merged into one answer per answer-key entry. */
function mergedProbeReplies(
  input: ScorerBlockInput<IndexedMemoryWorld>,
  probes: ScorerBlockInput<IndexedMemoryWorld>['requests'],
): { merged: ParsedProbeReply; unusable: Unusable[] } {
  const unusable: Unusable[] = [];
  const answers = new Map<string, ClassifiedAnswer>();
  let foundAnswerSet = true;
  let unrequestedCount = 0;
  const notes: string[] = [];
  for (const probe of probes) {
    const ids = input.askedIds(probe, 'QUESTIONS');
    const { requestId } = probe.request;
    if (probe.reply === null || ids === null) {
      const reason = probe.unusableReason ?? 'rendered request has no QUESTIONS block';
      unusable.push({ requestId, reason });
      foundAnswerSet = false;
      continue;
    }
    const parsed = parseProbeReply(probe.reply, ids);
    for (const answer of parsed.answers) answers.set(answer.id, answer);
    foundAnswerSet &&= parsed.foundAnswerSet;
    unrequestedCount += parsed.unrequestedCount;
    notes.push(...parsed.notes.map((note) => `${requestId}: ${note}`));
  }
  const reasonFor = unusable.map((u) => `${u.requestId} ${u.reason}`).join('; ') || 'not asked';
  const merged: ParsedProbeReply = {
    answers: input.world.world.answerKey.map(
      (entry) => answers.get(entry.id) ?? missingProbe(entry.id, reasonFor),
    ),
    foundAnswerSet,
    unrequestedCount,
    notes,
  };
  return { merged, unusable };
}

/** One condition's observation and traces: its probes (by batch) merged and scored. */
function scoreCondition(
  input: ScorerBlockInput<IndexedMemoryWorld>,
  condition: MemoryCondition,
): ScorerBlockResult<MemoryObservation, MemoryTraceLine> {
  const { block, systemId, blockComplete } = input;
  const { world, index } = input.world;
  const probes = input.requests
    .filter((r) => isMemoryProbe(r.request) && (r.request.condition ?? 'notebook') === condition)
    .sort((a, b) => (a.request.batch ?? 0) - (b.request.batch ?? 0));
  const { merged, unusable } = mergedProbeReplies(input, probes);
  const where = {
    systemId,
    condition,
    load: world.load,
    worldSeed: block.worldSeed,
    blockComplete,
  };
  return {
    observations: [
      {
        kind: 'memory-observation',
        systemId,
        blockId: block.blockId,
        worldSeed: block.worldSeed,
        blockComplete,
        unusableRequests: unusable,
        condition,
        load: world.load,
        score: scoreMemoryProbes(world.answerKey, merged, input.alphas),
      },
    ],
    traces: traceMemoryProbes(world.records, world.answerKey, merged, index).map((trace) => ({
      ...where,
      trace,
    })),
  };
}

/** One observation per condition the block probes, in the order the plan first asks it. */
function scoreMemoryBlock(
  input: ScorerBlockInput<IndexedMemoryWorld>,
): ScorerBlockResult<MemoryObservation, MemoryTraceLine> {
  const conditions = [
    ...new Set(
      input.requests
        .filter((r) => isMemoryProbe(r.request))
        .map((r) => r.request.condition ?? 'notebook'),
    ),
  ];
  const results = conditions.map((condition) => scoreCondition(input, condition));
  return {
    observations: results.flatMap((result) => result.observations),
    traces: results.flatMap((result) => result.traces),
  };
}

/** The trace file of a memory probe: one per system, load and condition. */
function memoryTraceFile(line: MemoryTraceLine): string {
  const suffix = line.condition === 'notebook' ? '' : `-${line.condition}`;
  return `traces/${line.systemId}/memory-n${line.load}${suffix}.jsonl`;
}

/**
 * Scores the memory experiment and its controls, block by block: per block (world and load) and
 * condition, the probe replies merged over batches and scored against the answer key (Q_M and its
 * factors), with one trace per probe; its analysis is `memoryAnalysis` (`@chi/analysis`).
 */
export const memoryScorer = defineBlockScorer({
  specificationVersion: 'chi-scorer-v1',
  experimentId: 'memory',
  title: 'Memory capacity',
  parametersOf: (manifest) => manifest.experiments.memory ?? null,
  notes: [
    'Q_M per world, load and condition from the probe replies against the answer key; capacity curves and EIMC with world-cluster bootstrap intervals (chart-data.json).',
  ],
  blocks: {
    blockExperiments: ['memory', 'controls'],
    world: (records: BuiltInRecords, block): IndexedMemoryWorld => {
      const world = blockWorld(
        records.memoryWorlds,
        memoryFileKey(block.worldSeed, block.load ?? 0),
        block,
        `memory world w${block.worldSeed}-n${block.load}`,
      );
      return { world, index: indexRecords(world.records) };
    },
    worldFile: (records: BuiltInRecords, block) =>
      records.memoryWorlds.pathOf(memoryFileKey(block.worldSeed, block.load ?? 0)) ??
      records.worldPaths.memoryWorld(block.worldSeed, block.load ?? 0),
    scoreBlock: scoreMemoryBlock,
    traceFile: memoryTraceFile,
  },
  analysis: memoryAnalysis,
});
