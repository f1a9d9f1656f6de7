import type { ChatResult, RunPlan } from '@chi/spec';
import { describe, expect, it } from 'vitest';
import { computeBlockStatuses } from './block-status';
import type { RequestOutcome } from './request-outcome';

const result = (failure: ChatResult['failure']) => ({ failure }) as ChatResult;
const plan = {
  kind: 'run-plan',
  schemaVersion: 1,
  requests: [],
  blocks: [
    { blockId: 'b1', experiment: 'memory', worldSeed: 1, load: 32, requestIds: ['a', 'b'] },
    { blockId: 'b2', experiment: 'behavior', worldSeed: 1, load: null, requestIds: ['c', 'd'] },
    { blockId: 'b3', experiment: 'behavior', worldSeed: 2, load: null, requestIds: ['e', 'f'] },
    { blockId: 'b4', experiment: 'history', worldSeed: 2, load: null, requestIds: ['g', 'h', 'i'] },
  ],
} as RunPlan;

describe('computeBlockStatuses', () => {
  it('keeps model failures in complete blocks and names every cause of an incomplete one', () => {
    const outcomes = new Map<string, RequestOutcome>([
      ['a', { kind: 'resolved', result: result('none') }],
      ['b', { kind: 'resolved', result: result('truncated') }],
      ['c', { kind: 'resolved', result: result('http_retryable') }],
      ['d', { kind: 'abandoned', reason: 'possibly sent' }],
      ['e', { kind: 'not_sent', reason: 'ceiling stop' }],
      ['f', { kind: 'not_sent', reason: 'ceiling stop' }],
      ['g', { kind: 'resolved', result: result('connection_retryable') }],
      ['h', { kind: 'blocked', by: 'g' }],
      ['i', { kind: 'blocked', by: 'g' }],
    ]);
    const statuses = computeBlockStatuses(plan, outcomes);
    expect(statuses.map((status) => status.status)).toEqual([
      'complete',
      'incomplete',
      'not_started',
      'incomplete',
    ]);
    expect(statuses[0]?.requests).toEqual({
      total: 2,
      resolved: 2,
      modelFailures: 1,
      infrastructureFailures: 0,
      abandoned: 0,
      notSent: 0,
    });
    expect(statuses[1]?.reasons).toEqual([
      '1 x infrastructure failure: http_retryable',
      '1 x uncertain_attempt: possibly sent before an interruption, never re-sent',
    ]);
    expect(statuses[2]?.reasons).toEqual(['2 x not sent: ceiling stop']);
    expect(statuses[3]?.reasons).toEqual([
      '1 x infrastructure failure: connection_retryable',
      '2 x not sent: a request it depends on produced no notebook',
    ]);
  });

  it('treats HTTP 401 and 402 as account failures that make a block incomplete', () => {
    const fatal = (status: number) =>
      ({ failure: 'http_fatal', tries: [{ status }] }) as unknown as ChatResult;
    const two = { ...plan, blocks: [plan.blocks[0]!, plan.blocks[1]!] } as RunPlan;
    const outcomes = new Map<string, RequestOutcome>([
      ['a', { kind: 'resolved', result: fatal(400) }],
      ['b', { kind: 'resolved', result: result('none') }],
      ['c', { kind: 'resolved', result: fatal(402) }],
      ['d', { kind: 'resolved', result: result('none') }],
    ]);
    const statuses = computeBlockStatuses(two, outcomes);
    expect(statuses.map((status) => status.status)).toEqual(['complete', 'incomplete']);
    expect(statuses[0]?.requests.modelFailures).toBe(1);
    expect(statuses[1]?.reasons).toEqual(['1 x account failure: HTTP 402']);
  });
});
