import type { RunFacts } from '@chi/analysis';
import { systemLabel } from '@chi/analysis/internal';

/**
 * The Okabe–Ito palette (Okabe & Ito 2008, "Color Universal Design"): eight colours that stay
 * distinct under the common colour-vision deficiencies (deuteranopia, protanopia, tritanopia) and
 * in greyscale print. Tableau 10, used before, puts red and green side by side.
 */
export const OKABE_ITO = {
  orange: '#e69f00',
  skyBlue: '#56b4e9',
  bluishGreen: '#009e73',
  yellow: '#f0e442',
  blue: '#0072b2',
  vermillion: '#d55e00',
  reddishPurple: '#cc79a7',
  black: '#000000',
} as const;

/**
 * The colour of each scripted reference system, fixed across every figure and every release so a
 * reader learns it once (Okabe–Ito).
 */
export const SCRIPTED_SYSTEM_COLORS: Readonly<Record<string, string>> = {
  perfect: OKABE_ITO.blue,
  'capacity-keeper': OKABE_ITO.orange,
  'latest-wins': OKABE_ITO.vermillion,
  confabulator: OKABE_ITO.reddishPurple,
  abstainer: OKABE_ITO.bluishGreen,
};

/**
 * Colours for other systems (live models), in manifest order, each the first not yet used in the
 * run: the three Okabe–Ito colours no scripted system has (yellow last: the faintest on white),
 * then the scripted systems' colours for a run without them. Past eight systems colours repeat;
 * series then differ by their label. Categories that are not systems are never coloured with
 * these: they differ by shape, dash, opacity or their own palette (outcome reasons).
 */
const OTHER_SYSTEM_COLORS: readonly string[] = [
  OKABE_ITO.skyBlue,
  OKABE_ITO.black,
  OKABE_ITO.yellow,
  OKABE_ITO.blue,
  OKABE_ITO.orange,
  OKABE_ITO.bluishGreen,
  OKABE_ITO.reddishPurple,
  OKABE_ITO.vermillion,
];

/** The first colour of {@link OTHER_SYSTEM_COLORS} not in `used`, or by position past eight. */
function nextOtherColor(used: ReadonlySet<string>, position: number): string {
  const free = OTHER_SYSTEM_COLORS.find((color) => !used.has(color));
  return free ?? (OTHER_SYSTEM_COLORS[position % OTHER_SYSTEM_COLORS.length] as string);
}

/**
 * The system -> colour map of a run, keyed by the system's display label: the fixed colour of a
 * scripted reference system, then the other colours in manifest order. Every figure colours a
 * system through this map, so a system has one colour in the whole release.
 */
export function systemColors(run: RunFacts): Map<string, string> {
  // scripted systems first, so their fixed colours are theirs whatever the manifest order
  const fixed = new Map<string, string>();
  for (const system of run.systems) {
    const color = SCRIPTED_SYSTEM_COLORS[system.id];
    if (color !== undefined && ![...fixed.values()].includes(color)) fixed.set(system.id, color);
  }
  const used = new Set(fixed.values());
  const colors = new Map<string, string>();
  let next = 0;
  for (const system of run.systems) {
    const color = fixed.get(system.id) ?? nextOtherColor(used, next++);
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
