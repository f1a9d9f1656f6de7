import { memoryExperiment } from '@chi/experiments/internal';
import type { MemoryExperimentParams } from '@chi/spec/internal';
import { defineExperiment, type Experiment } from '../experiments/experiment';

/**
 * The memory experiment of a study session after the first: the same units, the same probe
 * requests (same IDs, nonces and blind questions: "the same questions under the same
 * conditions"), without the encode: every probe reads the notebook its system ended the previous
 * session with (`carried`, by `<systemId>|memory|<seed>|<load>`; a notebook never written reads
 * empty). It keeps the memory experiment's ID, parameters and scoring, so the session's release
 * scores it as any memory block.
 */
export function retentionMemoryExperiment(
  carried: Readonly<Record<string, string>>,
): Experiment<MemoryExperimentParams> {
  return defineExperiment<MemoryExperimentParams>({
    ...memoryExperiment,
    plan: (context) =>
      memoryExperiment.plan(context).map((unit) => ({
        ...unit,
        requestsFor: (systemId) =>
          unit
            .requestsFor(systemId)
            .filter((request) => request.task !== 'memory_encode')
            .map((request) => ({ ...request, dependsOn: [] })),
      })),
    render: (context) =>
      memoryExperiment.render({
        ...context,
        notes: (systemId, key) => carried[`${systemId}|${key}`] ?? '',
      }),
  });
}
