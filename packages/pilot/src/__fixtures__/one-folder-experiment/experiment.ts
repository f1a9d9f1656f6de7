import { renderJsonBlock } from '@chi/experiment';
import { z } from 'zod';
import { oneRequestExperiment } from '../one-request-experiment';

/** The fixture experiment's ID: spelled here and nowhere else outside this folder but its test. */
export const ONE_FOLDER_ID = 'x-one-folder';

/**
 * An experiment added in one folder (this one): its module here, its scorer (`scorer.ts`) and
 * a model that answers it (`model.ts`). A run includes it by passing the module in
 * `experiments` and the scorer beside `BUILT_IN_SCORERS` in `scorers`; nothing else changes.
 */
export const oneFolderExperiment = oneRequestExperiment<{ words: number }>({
  id: ONE_FOLDER_ID,
  params: { words: 3 },
  parameters: z.strictObject({ words: z.int() }),
  render: ({ request }) => ({
    task: ONE_FOLDER_ID,
    template: { name: ONE_FOLDER_ID, version: '1' },
    messages: [
      {
        role: 'user',
        content: renderJsonBlock('REQUEST', { task: ONE_FOLDER_ID, nonce: request.nonce }),
      },
    ],
  }),
});
