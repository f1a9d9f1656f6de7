/**
 * `@chi/figures/palette`: the colours of the release's figures as plain data, with no chart
 * library behind them, so that `chi view` draws a system in the colour its figures give it
 * without loading vega (the view's small module graph; `view-cli-imports.test.ts`).
 *
 * @packageDocumentation
 */

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
 * Colours for other systems (live models), in order, each the first not yet used: the three
 * Okabe–Ito colours no scripted system has (yellow last: the faintest on white), then the
 * scripted systems' colours for a run without them. Past eight systems colours repeat; series
 * then differ by their label. Categories that are not systems are never coloured with these: they
 * differ by shape, dash, opacity or their own palette (outcome reasons).
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
 * System ID -> colour for systems in manifest order: the fixed colour of a scripted reference
 * system whatever its position, then the other colours in order. Every figure and every `chi view`
 * page colours a system through this, so a system has one colour wherever it is drawn.
 *
 * @example
 * ```ts
 * colorsForSystems(['my-model', 'perfect']); // Map { 'my-model' => '#56b4e9', 'perfect' => '#0072b2' }
 * ```
 */
export function colorsForSystems(systemIds: readonly string[]): Map<string, string> {
  // scripted systems first, so their fixed colours are theirs whatever the manifest order
  const fixed = new Map<string, string>();
  for (const id of systemIds) {
    const color = SCRIPTED_SYSTEM_COLORS[id];
    if (color !== undefined && ![...fixed.values()].includes(color)) fixed.set(id, color);
  }
  const used = new Set(fixed.values());
  const colors = new Map<string, string>();
  let next = 0;
  for (const id of systemIds) {
    const color = fixed.get(id) ?? nextOtherColor(used, next++);
    used.add(color);
    colors.set(id, color);
  }
  return colors;
}
