import type { ModuleObservation } from '@chi/analysis';
import type { AnyExperimentScorer } from '@chi/experiment';
import type { RequestOutcome } from '@chi/run';
import { usableReply } from '@chi/run/internal';
import type { ChatResult } from '@chi/spec';
import { groupRequestOrdinals, requestsAt } from '../run-folder/plan-view';
import type { RunRecords } from '../run-folder/run-folder';
import type { InspectExchange, InspectUnit } from './inspect-sample';

/** The key of a world's requests in the plan's grouping. */
function worldKey(experiment: string, systemId: string, worldSeed: number): string {
  return `${experiment}|${systemId}|${worldSeed}`;
}

function valuesText(values: Readonly<Record<string, number | null>>): string {
  return Object.entries(values)
    .map(([column, value]) => `${column} ${value === null ? 'undefined' : value}`)
    .join(', ');
}

/** The Inspect scorer name of a module experiment: `chi_<experiment id in snake case>`. */
export function moduleScorerName(scorer: AnyExperimentScorer): string {
  return `chi_${scorer.experimentId.replace(/-/g, '_')}`;
}

/**
 * The units of module experiments: one per system and scored world (the unit its scorer
 * scores) with at least one answered request; its exchanges are the world's answered requests
 * in plan order, its score the scorer's per-world values (an Inspect map score). There is no
 * target text: the scorer regenerates the truth from the world seed.
 */
export function moduleUnits(
  records: RunRecords,
  observations: readonly ModuleObservation[],
  outcomes: ReadonlyMap<string, RequestOutcome>,
): InspectUnit[] {
  const byWorld = groupRequestOrdinals(records.plan, (r) =>
    worldKey(r.experiment, r.systemId, r.worldSeed),
  );
  const units: InspectUnit[] = [];
  for (const observation of observations) {
    const { experiment, systemId, worldSeed } = observation;
    const requests = requestsAt(
      records.plan,
      byWorld.get(worldKey(experiment, systemId, worldSeed)),
    );
    const exchanges: InspectExchange[] = [];
    const listed = requests.map((request) => {
      const outcome = outcomes.get(request.requestId);
      const reply = usableReply(outcome ?? { kind: 'not_sent', reason: 'no attempt recorded' });
      const result: ChatResult | null = outcome?.kind === 'resolved' ? outcome.result : null;
      if (result !== null)
        exchanges.push({
          requestId: request.requestId,
          input: records.requests.get(request.requestId)?.messages ?? [],
          result,
        });
      return {
        requestId: request.requestId,
        task: request.task,
        step: request.step,
        answered: result !== null,
        unusableReason: reply.kind === 'reply' ? null : reply.reason,
      };
    });
    if (exchanges.length === 0) continue;
    units.push({
      id: `${systemId}.${experiment}.w${worldSeed}`,
      systemId,
      experiment,
      exchanges,
      target: '',
      score: {
        value: { ...observation.values },
        answer: null,
        explanation: `world ${worldSeed}: ${valuesText(observation.values)}${observation.blockComplete ? '' : ' (an incomplete block: left out of the means)'}`,
        metadata: { unusableRequests: observation.unusableRequests.map((u) => ({ ...u })) },
      },
      metadata: {
        experiment,
        worldSeed,
        blockComplete: observation.blockComplete,
        requests: listed,
      },
    });
  }
  return units;
}
