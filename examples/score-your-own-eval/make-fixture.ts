/**
 * Writes data/eval.jsonl: the questions of 4 worlds x 4 loads and a FIXTURE reply to each.
 *
 * The replies are not from a model. They are written here from the hidden answer key by a fixed
 * rule, so every score of eval.ts can be worked out by hand (see README.md):
 * - at load N, world w answers the first `CORRECT_PER_STRATUM[N][w]` probes of each content
 *   stratum (r, t, s, u, i) correctly and fails the rest: an odd world writes its first failed
 *   probe with a value but a null source (an invalid answer), every other failed probe abstains,
 *   or, where abstaining is right (an as-of question before the key's first record), affirms an
 *   invented value;
 * - it invents a value for the first `INVENTED_LURES[N]` lures and abstains on the others;
 * - each world writes its reply in a different shape (bare array, fenced JSON inside prose, an
 *   `answers` object, prose around an array), which the parser accepts alike.
 *
 * Deterministic: no clock, no Math.random. `pnpm fixture` rewrites the file; the output is
 * byte-identical unless @chi/worlds changes what a seed generates (main.ts checks this).
 */
import { writeFileSync } from 'node:fs';
import { deriveSeed, generateMemoryWorld } from '@chi/worlds';

/** The root seed of this eval: world w has seed deriveSeed(ROOT_SEED, 'world', w). */
export const ROOT_SEED = 424242;
export const WORLDS = 4;
export const LOADS = [32, 64, 128, 256] as const;
export type Load = (typeof LOADS)[number];

/** Correct answers per content stratum (of 8) at each load, for worlds 0, 1, 2, 3. */
export const CORRECT_PER_STRATUM: Record<Load, readonly number[]> = {
  32: [8, 8, 8, 8],
  64: [8, 7, 8, 7],
  128: [6, 5, 6, 5],
  256: [4, 3, 4, 3],
};
/** Lures (of 8) answered with an invented value at each load, in every world. */
export const INVENTED_LURES: Record<Load, number> = { 32: 0, 64: 0, 128: 1, 256: 2 };

/** The label every line carries: these replies are fixture data, never model output. */
export const FIXTURE_NOTE =
  'FIXTURE reply written by make-fixture.ts from the answer key by a fixed rule; not model output';

interface Answer {
  readonly id: string;
  readonly value: string | null;
  readonly source: string | null;
}

function formatReply(world: number, answers: readonly Answer[]): string {
  const array = JSON.stringify(answers);
  switch (world % 4) {
    case 0:
      return array;
    case 1:
      return `Sure. My notes give the following.\n\n\`\`\`json\n${JSON.stringify({ answers }, null, 2)}\n\`\`\`\n`;
    case 2:
      return JSON.stringify({ answers });
    default:
      return `Here are my answers:\n${array}\nDone.`;
  }
}

/** The fixture lines, in file order (world, then load). */
export function fixtureLines(): string[] {
  const lines: string[] = [];
  for (let world = 0; world < WORLDS; world++) {
    const seed = deriveSeed(ROOT_SEED, 'world', world);
    for (const load of LOADS) {
      const generated = generateMemoryWorld({ seed, load });
      const correct = CORRECT_PER_STRATUM[load][world] ?? 8;
      const seenPerStratum = new Map<string, number>();
      const answers: Answer[] = generated.answerKey.map((entry) => {
        const rank = seenPerStratum.get(entry.stratum) ?? 0;
        seenPerStratum.set(entry.stratum, rank + 1);
        if (entry.stratum === 'f') {
          if (rank >= INVENTED_LURES[load]) return { id: entry.id, value: null, source: null };
          const invented = deriveSeed(seed, 'invented', entry.id).toString(16).padStart(8, '0');
          return { id: entry.id, value: invented, source: 'src-guess' };
        }
        const failed = 8 - correct;
        if (rank >= failed) {
          return { id: entry.id, value: entry.expectedValue, source: entry.expectedSource };
        }
        // An as-of question asked before the key's first record has the answer unknown, where
        // abstaining is correct: such a probe fails by affirming an invented value instead.
        const invented = deriveSeed(seed, 'invented', entry.id).toString(16).padStart(8, '0');
        if (world % 2 === 1 && rank === 0) {
          return { id: entry.id, value: entry.expectedValue ?? invented, source: null }; // invalid: one null
        }
        if (entry.expectedValue === null)
          return { id: entry.id, value: invented, source: 'src-guess' };
        return { id: entry.id, value: null, source: null };
      });
      // Answer in question order, as a model answering the prompt would.
      const byId = new Map(answers.map((answer) => [answer.id, answer]));
      const ordered = generated.probes.map((probe) => byId.get(probe.id) as Answer);
      lines.push(
        JSON.stringify({
          evidenceClass: 'fixture',
          note: FIXTURE_NOTE,
          world,
          seed,
          load,
          questions: generated.probes,
          reply: formatReply(world, ordered),
        }),
      );
    }
  }
  return lines;
}

// `pnpm fixture` (tsx make-fixture.ts --write) rewrites the committed file; main.ts imports this
// module only to check that the committed file is still exactly what this script writes.
if (process.argv.includes('--write')) {
  const path = new URL('./data/eval.jsonl', import.meta.url);
  writeFileSync(path, `${fixtureLines().join('\n')}\n`);
  console.log(`wrote ${path.pathname} (FIXTURE replies, not model output)`);
}
