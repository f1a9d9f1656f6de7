import type { RunFacts } from '@chi/analysis';
import { systemLabel } from '@chi/analysis/internal';
import { colorsForSystems } from './palette';

export { OKABE_ITO, SCRIPTED_SYSTEM_COLORS } from './palette';

/**
 * The system -> colour map of a run, keyed by the system's display label: the fixed colour of a
 * scripted reference system, then the other colours in manifest order. Every figure colours a
 * system through this map, so a system has one colour in the whole release.
 */
export function systemColors(run: RunFacts): Map<string, string> {
  const byId = colorsForSystems(run.systems.map((system) => system.id));
  return new Map(
    run.systems.map((system) => [systemLabel(run, system.id), byId.get(system.id) as string]),
  );
}

/** A vega-lite colour scale that applies {@link systemColors}. */
export function systemColorScale(run: RunFacts): { domain: string[]; range: string[] } {
  const colors = systemColors(run);
  return { domain: [...colors.keys()], range: [...colors.values()] };
}
