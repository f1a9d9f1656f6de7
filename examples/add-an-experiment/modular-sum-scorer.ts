/**
 * The scorer of `x-modular-sum` (modular-sum.ts): its scoring and analysis part, in the form the
 * report runs without the runner (`ExperimentScorer` of `@chi/run`). Passed to `runPilot` and
 * `verifyRelease` beside `BUILT_IN_SCORERS`, it puts the module's accuracy into the release
 * (`scores/x-modular-sum.jsonl`, `traces/<system>/x-modular-sum.jsonl`,
 * `chart-data/x-modular-sum.json|.csv`, a report section) and `verifyRelease` recomputes it.
 */
import { defineExperimentScorer, extractJsonBlock } from '@chi/experiment';
import { z } from 'zod';
import { sumItems } from './modular-sum';

const Params = z.strictObject({ items: z.int().min(1).max(50) });

/** The integer answers of a reply, by item ID (a reply that is no JSON array answers nothing). */
function answersOf(text: string | null): Map<string, unknown> {
  try {
    const parsed = JSON.parse(text ?? '') as unknown;
    if (!Array.isArray(parsed)) return new Map();
    return new Map(
      parsed
        .filter((a): a is { id: string; answer: unknown } => typeof a?.id === 'string')
        .map((a) => [a.id, a.answer]),
    );
  } catch {
    return new Map();
  }
}

/** Scores `x-modular-sum`: per world, the share of items answered exactly (a + b) mod 97. */
export const modularSumScorer = defineExperimentScorer<z.infer<typeof Params>>({
  specificationVersion: 'chi-scorer-v1',
  experimentId: 'x-modular-sum',
  title: 'Modular sums (example module)',
  parametersOf: (manifest) => {
    const raw = manifest.experiments.added?.['x-modular-sum'];
    return raw === undefined ? null : Params.parse(raw);
  },
  columns: ['accuracy'],
  estimands: [{ column: 'accuracy', label: 'share of items answered exactly' }],
  scoreWorld: ({ params, worldSeed, requests }) => {
    // the answer key comes from the world seed, the question list from the prompt as sent
    const key = new Map(sumItems(worldSeed, params.items).map((item) => [item.id, item.answer]));
    const request = requests[0];
    const prompt = request?.messages?.at(-1)?.content ?? '';
    const asked = (extractJsonBlock(prompt, 'QUESTIONS') as { id: string }[] | null) ?? [];
    const answers = answersOf(request?.reply ?? null);
    const traces = asked.map(({ id }) => ({
      item: id,
      answer: typeof answers.get(id) === 'number' ? (answers.get(id) as number) : null,
      correct: answers.get(id) === key.get(id),
    }));
    const correct = traces.filter((line) => line.correct).length;
    return { values: { accuracy: key.size === 0 ? null : correct / key.size }, traces };
  },
  notes: [
    'An example module, not one of the specification tests: accuracy on six (a + b) mod 97 items per world.',
  ],
});
