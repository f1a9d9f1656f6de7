/** The tokens a tally world draws from. */
export const TOKENS = ['red', 'blue', 'green'] as const;

/** A tally world: a seeded list of tokens, and how many of them are red. */
export interface TallyWorld {
  readonly tokens: readonly string[];
  readonly red: number;
}

/** The tally world of a seed (a small linear congruential generator: pure in the seed). */
export function tallyWorld(worldSeed: number, items: number): TallyWorld {
  let state = worldSeed >>> 0;
  const tokens = Array.from({ length: items }, () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return TOKENS[state % TOKENS.length] as string;
  });
  return { tokens, red: tokens.filter((token) => token === 'red').length };
}
