import type { RunChartData } from '@chi/analysis';

/** How much of the planned run a release rests on: worlds and blocks complete of planned. */
export interface RunCompleteness {
  /** Worlds whose every block (all experiments, loads and systems) is complete. */
  readonly completeWorlds: number;
  readonly plannedWorlds: number;
  readonly completeBlocks: number;
  readonly plannedBlocks: number;
  /** True when any planned block is not complete: every estimate rests on fewer worlds than planned. */
  readonly partial: boolean;
}

/**
 * The completeness of a run from its chart data: a world counts as complete only when every one
 * of its blocks is, so a stopped run that finished one world of eight reads `1 of 8`.
 *
 * @example
 * ```ts
 * const c = runCompleteness(data);
 * if (c.partial) console.log(partialRunText(c)); // 'partial: 1 of 8 worlds complete'
 * ```
 */
export function runCompleteness(data: Pick<RunChartData, 'run' | 'missingness'>): RunCompleteness {
  const blocks = data.missingness.blocks;
  const seeds = data.run.worldSeeds;
  const completeWorlds = seeds.filter((seed) =>
    blocks.every((b) => b.worldSeed !== seed || b.status === 'complete'),
  ).length;
  const completeBlocks = blocks.filter((b) => b.status === 'complete').length;
  return {
    completeWorlds,
    plannedWorlds: seeds.length,
    completeBlocks,
    plannedBlocks: blocks.length,
    partial: completeBlocks < blocks.length,
  };
}

/**
 * `partial: k of n worlds complete` for a partial run, or null for a complete one. Every summary
 * (the report's, the view's, `chi pilot`'s stdout) prints it before any estimate.
 */
export function partialRunText(completeness: RunCompleteness): string | null {
  if (!completeness.partial) return null;
  return `partial: ${completeness.completeWorlds} of ${completeness.plannedWorlds} worlds complete (${completeness.completeBlocks} of ${completeness.plannedBlocks} blocks)`;
}
