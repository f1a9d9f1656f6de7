import { defineExperimentScorer } from '@chi/experiment';
import { ONE_FOLDER_ID } from './experiment';

/**
 * The fixture's scorer with both capabilities: per block (what the pilot's memory, history and
 * behavior use) and per world (what the opt-in environments use). It records the blocks it
 * receives, so the test sees that `scoreRun` fed it in the same pass as the built-in scorers.
 */
export function oneFolderScorer(received: string[] = []) {
  return defineExperimentScorer<{ words: number }>({
    specificationVersion: 'chi-scorer-v1',
    experimentId: ONE_FOLDER_ID,
    title: 'One-folder experiment (test module)',
    parametersOf: (manifest) =>
      (manifest.experiments.added?.[ONE_FOLDER_ID] as { words: number } | undefined) ?? null,
    notes: ['A test module: the share of replies that are exactly ok.'],
    columns: ['ok'],
    estimands: [{ column: 'ok', label: 'replies that are ok' }],
    scoreWorld: ({ requests }) => ({
      values: { ok: requests.filter((r) => r.reply === 'ok').length / requests.length },
      traces: [],
    }),
    blocks: {
      blockExperiments: [ONE_FOLDER_ID],
      world: (_records, block) => block.worldSeed,
      worldFile: (_records, block) => `worlds/${ONE_FOLDER_ID}-w${block.worldSeed}`,
      scoreBlock: ({ block, systemId, blockComplete, requests }) => {
        received.push(`${systemId}|${block.blockId}`);
        const where = { systemId, worldSeed: block.worldSeed, blockComplete };
        return {
          observations: [
            {
              ...where,
              blockId: block.blockId,
              unusableRequests: [],
              replies: requests.map((r) => r.reply),
            },
          ],
          traces: requests.map((r) => ({
            ...where,
            requestId: r.request.requestId,
            reply: r.reply,
          })),
        };
      },
      traceFile: (line: { systemId: string }) => `traces/${line.systemId}/${ONE_FOLDER_ID}-blocks.jsonl`,
    },
  });
}

