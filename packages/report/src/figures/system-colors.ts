import type { RunFacts } from '../chart-data';
import { systemLabel } from '../evidence-label';

/**
 * The colour of each scripted reference system, fixed across every figure and every release so a
 * reader learns it once. Chosen from Tableau 10 (colour-blind-aware and print-safe).
 */
export const SCRIPTED_SYSTEM_COLORS: Readonly<Record<string, string>> = {
  perfect: '#4e79a7',
  'capacity-keeper': '#f28e2b',
  'latest-wins': '#e15759',
  confabulator: '#76b7b2',
  abstainer: '#59a14f',
};

/**
 * Colours for other systems (live models), in manifest order; none is a scripted system's colour.
 * Categories that are not systems are never coloured with these: they differ by shape, dash,
 * opacity or their own palette (outcome reasons).
 */
const OTHER_SYSTEM_COLORS = [
  '#b07aa1',
  '#9c755f',
  '#edc948',
  '#ff9da7',
  '#bab0ac',
  '#17becf',
  '#8c564b',
  '#7f7f7f',
];

/**
 * The system -> colour map of a run, keyed by the system's display label: the fixed colour of a
 * scripted reference system, then the other colours in manifest order. Every figure colours a
 * system through this map, so a system has one colour in the whole release.
 */
export function systemColors(run: RunFacts): Map<string, string> {
  const used = new Set<string>();
  const colors = new Map<string, string>();
  let next = 0;
  for (const system of run.systems) {
    const fixed = SCRIPTED_SYSTEM_COLORS[system.id];
    const color =
      fixed !== undefined && !used.has(fixed)
        ? fixed
        : (OTHER_SYSTEM_COLORS[next++ % OTHER_SYSTEM_COLORS.length] as string);
    used.add(color);
    colors.set(systemLabel(run, system.id), color);
  }
  return colors;
}

/** A vega-lite colour scale that applies {@link systemColors}. */
export function systemColorScale(run: RunFacts): { domain: string[]; range: string[] } {
  const colors = systemColors(run);
  return { domain: [...colors.keys()], range: [...colors.values()] };
}
