import {
  defineExperiment,
  type PlannedUnit,
  plannedRequest,
  promptSections,
  renderJsonBlock,
  renderTemplate,
  requestNonce,
  requireSection,
  requireTemplate,
} from '@chi/experiment';
import type { BuiltInHost } from '@chi/experiments';
import type { PlannedRequest } from '@chi/spec';
import { z } from 'zod';
import { TALLY_PROMPT } from './prompts';
import { tallyWorld } from './world';

/** Its parameters under `manifest.experiments.tally`: the tokens per world. */
export const TallyParamsSchema = z.strictObject({ items: z.int().min(1).max(20) });
/** Its parameters. */
export type TallyParams = z.infer<typeof TallyParamsSchema>;

const blockIdOf = (worldSeed: number) => `tally.w${worldSeed}`;
const notebookOf = (blockId: string) => `tally|${blockId}`;

function worldRequests(worldSeed: number, systemId: string): PlannedRequest[] {
  const blockId = blockIdOf(worldSeed);
  const common = { systemId, blockId, worldSeed, experiment: 'tally' } as const;
  const countId = `${systemId}.${blockId}.count`;
  return [
    plannedRequest({
      ...common,
      requestId: countId,
      task: 'tally_count',
      step: 'count',
      dependsOn: [],
      writesNotebook: true,
      nonce: requestNonce(worldSeed, blockId, 'count'),
    }),
    plannedRequest({
      ...common,
      requestId: `${systemId}.${blockId}.check`,
      task: 'tally_check',
      step: 'check',
      dependsOn: [countId],
      writesNotebook: false,
      nonce: requestNonce(worldSeed, blockId, 'check'),
    }),
  ];
}

/**
 * A two-request built-in experiment (a test fixture, not one of the specification's tests): count
 * the red tokens of a seeded list into the notebook, then recall the count from the notes alone.
 */
export const tallyExperiment = defineExperiment<TallyParams, BuiltInHost>({
  specificationVersion: 'chi-experiment-v1',
  id: 'tally',
  title: 'Tally (test fixture)',
  slots: [{ axis: 'M', coverage: 'partial', what: 'a count carried by the notebook (a fixture)' }],
  procedure: 'Per world one block: count the red tokens into notes, then recall the count.',
  taskScore: 'Whether the recalled count is the true count.',
  features: [
    {
      id: 'tally-features',
      version: 1,
      features: ['correct'],
      coding: '1 when the recalled count equals the number of red tokens, else 0.',
      schema: z.strictObject({ correct: z.union([z.literal(0), z.literal(1)]) }),
    },
  ],
  control: 'None: a fixture.',
  seedPassages: [{ source: 'framework', quote: 'Each states a procedure' }],
  parameters: TallyParamsSchema,
  kinds: ['tally'],
  tasks: ['tally_count', 'tally_check'],
  promptTemplates: [TALLY_PROMPT],
  parametersFrom: () => ({ items: 6 }),
  parametersOf: (manifest) => {
    const raw = (manifest.experiments as Readonly<Record<string, unknown>>).tally;
    return raw === undefined ? null : TallyParamsSchema.parse(raw);
  },
  plan: ({ worldSeed }): PlannedUnit[] => [
    {
      block: { blockId: blockIdOf(worldSeed), experiment: 'tally', worldSeed, load: null },
      requestsFor: (systemId) => worldRequests(worldSeed, systemId),
    },
  ],
  render: ({ request, params, prompts, notes }) => {
    const template = requireTemplate(prompts, TALLY_PROMPT.name);
    const sections = promptSections(template);
    const header = renderJsonBlock('REQUEST', { task: request.task, nonce: request.nonce });
    const content =
      request.task === 'tally_count'
        ? renderTemplate(requireSection(sections, 'count'), {
            REQUEST_BLOCK: header,
            TOKENS_BLOCK: renderJsonBlock('TOKENS', tallyWorld(request.worldSeed, params.items).tokens),
          })
        : renderTemplate(requireSection(sections, 'check'), {
            REQUEST_BLOCK: header,
            NOTES_BLOCK: renderJsonBlock('NOTES', {
              notes: notes(request.systemId, notebookOf(request.blockId)),
            }),
          });
    return {
      task: request.task,
      template: { name: template.name, version: template.version },
      messages: [{ role: 'user', content }],
    };
  },
  notebookKey: (request) => notebookOf(request.blockId),
});
