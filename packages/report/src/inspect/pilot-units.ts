import type { RunScores } from '@chi/analysis';
import {
  isBehaviorTraceLine,
  isHistoryTraceLine,
  isMemoryTraceLine,
  traceLinesOf,
} from '@chi/analysis';
import { compareUtf8 } from '@chi/analysis/internal';
import type { RequestOutcome } from '@chi/run';
import { jsonBlockIds } from '@chi/run/internal';
import type { PlannedRequest } from '@chi/spec';
import type { RunRecords } from '../run-folder/run-folder';
import type { InspectUnit } from './inspect-sample';

/** One scored question of a request: its ID, verdict and reason (from the release traces). */
interface ItemVerdict {
  readonly id: string;
  readonly expected: unknown;
  readonly verdict: string;
  readonly reason: string;
}

/** The pilot's scored tasks: one sample per request of these. */
const SCORED_TASKS = new Set([
  'memory_probe',
  'memory_probe_oracle',
  'history_probe',
  'behavior_half',
]);

/** The verdicts of the release traces, keyed as {@link requestVerdicts} looks them up. */
function traceVerdicts(scores: RunScores): Map<string, ItemVerdict[]> {
  const byKey = new Map<string, ItemVerdict[]>();
  const add = (key: string, verdict: ItemVerdict) => {
    const list = byKey.get(key) ?? [];
    list.push(verdict);
    byKey.set(key, list);
  };
  // a memory key names one probe: the last trace line of it wins, as in the release
  for (const { systemId, worldSeed, load, condition, trace } of traceLinesOf(
    scores,
    'memory',
    isMemoryTraceLine,
  ))
    byKey.set(`${systemId}|${worldSeed}|${load}|${condition}|${trace.probeId}`, [
      {
        id: trace.probeId,
        expected: { id: trace.probeId, value: trace.expectedValue, source: trace.expectedSource },
        verdict: trace.verdict,
        reason: trace.reason,
      },
    ]);
  for (const { systemId, worldSeed, trace } of traceLinesOf(scores, 'history', isHistoryTraceLine))
    add(`${systemId}|${worldSeed}|${trace.history}|${trace.checkpoint}`, {
      id: `${trace.history}.c${trace.checkpoint}.e${trace.environmentIndex}`,
      expected: trace.expected,
      verdict: trace.verdict,
      reason: trace.reason,
    });
  for (const { systemId, worldSeed, trace } of traceLinesOf(
    scores,
    'behavior',
    isBehaviorTraceLine,
  ))
    add(`${systemId}|${worldSeed}|${trace.half}`, {
      id: trace.itemId,
      expected: trace.expected,
      verdict: trace.verdict,
      reason: trace.reason,
    });
  return byKey;
}

/** The verdict of every question `request` asked. */
function requestVerdicts(
  records: RunRecords,
  byKey: ReadonlyMap<string, readonly ItemVerdict[]>,
  request: PlannedRequest,
): readonly ItemVerdict[] {
  const { systemId, worldSeed } = request;
  if (request.task === 'memory_probe' || request.task === 'memory_probe_oracle') {
    const rendered = records.requests.get(request.requestId);
    const text = rendered?.messages.map((message) => message.content).join('\n') ?? '';
    return (jsonBlockIds(text, 'QUESTIONS') ?? []).flatMap(
      (id) =>
        byKey.get(`${systemId}|${worldSeed}|${request.load}|${request.condition}|${id}`) ?? [],
    );
  }
  if (request.task === 'history_probe')
    return byKey.get(`${systemId}|${worldSeed}|${request.history}|${request.checkpoint}`) ?? [];
  return byKey.get(`${systemId}|${worldSeed}|${request.half}`) ?? [];
}

/** The fraction of a request's questions answered correctly (0 without questions). */
export function itemAccuracy(verdicts: readonly { verdict: string }[]): number {
  const passed = verdicts.filter((item) => item.verdict === 'pass').length;
  return verdicts.length === 0 ? 0 : passed / verdicts.length;
}

function explanation(verdicts: readonly ItemVerdict[]): string {
  const passed = verdicts.filter((item) => item.verdict === 'pass').length;
  const reasons = new Map<string, number>();
  for (const item of verdicts) reasons.set(item.reason, (reasons.get(item.reason) ?? 0) + 1);
  const counts = [...reasons.entries()]
    .sort(([a], [b]) => compareUtf8(a, b))
    .map(([reason, count]) => `${reason} ${count}`)
    .join(', ');
  return `${passed} of ${verdicts.length} questions correct (${counts || 'no questions scored'})`;
}

/**
 * The units of the pilot's own experiments (memory, controls, history, behavior): one per scored
 * request that received a result, its score the fraction of its questions answered correctly
 * (item accuracy, with every question's verdict), its target the expected answers.
 */
export function pilotUnits(
  records: RunRecords,
  scores: RunScores,
  outcomes: ReadonlyMap<string, RequestOutcome>,
): InspectUnit[] {
  const byKey = traceVerdicts(scores);
  const complete = new Map(scores.blocks.map((b) => [b.blockId, b.status === 'complete']));
  const units: InspectUnit[] = [];
  for (const request of records.plan.requests) {
    if (!SCORED_TASKS.has(request.task)) continue;
    const outcome = outcomes.get(request.requestId);
    if (outcome?.kind !== 'resolved') continue;
    const verdicts = requestVerdicts(records, byKey, request);
    units.push({
      id: request.requestId,
      systemId: request.systemId,
      experiment: request.experiment,
      exchanges: [
        {
          requestId: request.requestId,
          input: records.requests.get(request.requestId)?.messages ?? [],
          result: outcome.result,
        },
      ],
      target: JSON.stringify(verdicts.map((item) => item.expected)),
      score: {
        value: itemAccuracy(verdicts),
        answer: outcome.result.text,
        explanation: explanation(verdicts),
        metadata: {
          items: verdicts.map(({ id, verdict, reason }) => ({ id, verdict, reason })),
        },
      },
      metadata: {
        worldSeed: request.worldSeed,
        blockId: request.blockId,
        blockComplete: complete.get(request.blockId) ?? false,
        task: request.task,
        step: request.step,
        load: request.load,
        condition: request.condition,
        history: request.history,
        checkpoint: request.checkpoint,
        half: request.half,
        failure: outcome.result.failure,
      },
    });
  }
  return units;
}
