import {
  type ChartData,
  type EimcEntry,
  isControlCondition,
  type ReportSystem,
} from './chart-data';
import { runEvidenceBanner, systemLabel } from './evidence-label';
import { INDICATOR_LABELS } from './figures/behavior';
import { formatEstimate, formatNumber, formatRatio, formatUsd } from './format-number';
import { intervalWords } from './interval-wording';
import type { ReportBlock } from './report-document';

const EIMC_STATUS_SHORT: Record<EimcEntry['status'], string> = {
  capacity: 'capacity',
  lower_bound: 'lower bound: the largest tested load passes',
  no_passing_load: 'no passing load (not zero)',
};

function eimcText(entry: EimcEntry | undefined): string {
  if (entry === undefined) return 'not computed (a load without a complete world)';
  const value = entry.value === null ? 'none' : `N = ${entry.value}`;
  const range =
    entry.lower === null || entry.upper === null
      ? 'no bootstrap range'
      : `bootstrap range [${entry.lower}, ${entry.upper}]`;
  return `${value} (${EIMC_STATUS_SHORT[entry.status]}; ${range}; ${entry.noPassingReplicates} of ${entry.resamples} replicates without a passing load)`;
}

/**
 * The failures-and-cost line: the memory blocks are counted only when the run includes the
 * memory experiment (a run of other experiments has none to be incomplete).
 */
function failuresAndCost(
  data: ChartData,
  system: ReportSystem,
  memory: readonly ChartData['memory'][number][],
  includesMemory: boolean,
): string {
  const resources = data.resources.filter((r) => r.systemId === system.id);
  const requests = resources.reduce((sum, r) => sum + r.requests, 0);
  const failed = resources.reduce((sum, r) => sum + r.failedRequests, 0);
  const cost = resources.reduce((sum, r) => sum + r.costUsd, 0);
  const blocks = memory.concat(
    data.memory.filter((p) => p.systemId === system.id && isControlCondition(p.condition)),
  );
  const incomplete = blocks.reduce((sum, p) => sum + p.blocks.incomplete + p.blocks.missing, 0);
  const memoryBlocks = includesMemory ? ` ${incomplete} memory blocks incomplete or missing;` : '';
  return `Failures and cost: ${failed} of ${requests} requests failed;${memoryBlocks} cost ${formatUsd(cost)} over ${requests} requests.`;
}

function systemItems(data: ChartData, system: ReportSystem, includesMemory: boolean): string[] {
  const items: string[] = [];
  const eimc = data.eimc.filter((e) => e.systemId === system.id);
  const memory = data.memory.filter((p) => p.systemId === system.id && p.condition === 'notebook');
  if (memory.length > 0) {
    const byTau = data.run.analysis.taus.map(
      (tau) => `tau ${formatNumber(tau, 1)}: ${eimcText(eimc.find((e) => e.tau === tau))}`,
    );
    items.push(`EIMC (Effective Indexed Memory Capacity, in target keys): ${byTau.join('; ')}.`);
    items.push(
      `Q_M by load (Q_M of world-mean factors [${Math.round(data.run.analysis.level * 100)}% CI]; worlds used of planned, the curve's world set): ${memory
        .map(
          (p) =>
            `N = ${p.load}: ${formatEstimate(p.qualityScore)}, ${p.qualityScore.worlds}/${p.qualityScore.plannedWorlds} worlds`,
        )
        .join('; ')}.`,
    );
  }
  // The preregistered primary checkpoint, frozen in the manifest (never chosen here).
  const primary = data.run.analysis.primaryCheckpoint;
  const divergence = data.historyDistances.find(
    (d) => d.systemId === system.id && d.checkpoint === primary,
  );
  if (divergence !== undefined) {
    items.push(
      `Excess divergence D(A,B) − D(A,A2) at checkpoint ${primary} (the manifest's preregistered primary checkpoint): ${formatEstimate(divergence.divergence)}, ${divergence.divergence.worlds} worlds with fully valid vectors.`,
    );
  }
  const behavior = data.behavior.filter((b) => b.systemId === system.id);
  if (behavior.length > 0) {
    items.push(
      `Behavior indicators (world mean [CI]; pooled correct items / items, for the frame-induced change: changed pairs / valid pairs): ${behavior
        .map(
          (b) =>
            `${INDICATOR_LABELS[b.indicator]} ${formatEstimate(b.value)}, ${formatRatio(b.pooled)}`,
        )
        .join('; ')}.`,
    );
  }
  items.push(failuresAndCost(data, system, memory, includesMemory));
  return items;
}

/** Capped systems are evaluated; an uncapped notebook is a declared reference, never evaluated. */
export function evaluatedSystems(data: ChartData): ReportSystem[] {
  return data.run.systems.filter((s) => !s.uncappedNotebook);
}

/** Declared reference conditions (uncapped notebook): listed apart from the evaluated systems. */
export function referenceSystems(data: ChartData): ReportSystem[] {
  return data.run.systems.filter((s) => s.uncappedNotebook);
}

/**
 * The summary the report opens with: per system, each quotable result with its interval and
 * denominator: EIMC at every tau with its status, Q_M per load, the excess divergence at the
 * primary checkpoint, the behavior indicators, failures and cost (the incomplete memory blocks
 * only when `includesMemory`: the run has the memory experiment). Reference conditions follow
 * the evaluated systems, labelled as such.
 */
export function summaryBlocks(data: ChartData, includesMemory = true): ReportBlock[] {
  const banner = runEvidenceBanner(data.run);
  const blocks: ReportBlock[] = [
    { kind: 'heading', level: 2, text: 'Summary', id: 'summary' },
    ...(banner === null ? [] : [{ kind: 'banner' as const, text: banner }]),
    {
      kind: 'paragraph',
      text: `${data.run.systems.length} systems, ${data.run.worldSeeds.length} worlds. Intervals are ${intervalWords(data.run.analysis.level)}; every figure states its denominator. Terms are defined in the Glossary.`,
    },
  ];
  const section = (system: ReportSystem, reference: boolean): ReportBlock[] => [
    {
      kind: 'heading',
      level: 3,
      text: `${systemLabel(data.run, system.id)} (${system.model})${reference ? ' — reference condition, not an evaluated system' : ''}`,
      id: `summary-${system.id}`,
    },
    { kind: 'list', items: systemItems(data, system, includesMemory) },
  ];
  for (const system of evaluatedSystems(data)) blocks.push(...section(system, false));
  for (const system of referenceSystems(data)) blocks.push(...section(system, true));
  return blocks;
}
