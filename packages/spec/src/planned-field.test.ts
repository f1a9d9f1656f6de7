import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from './errors';
import { type PlannedRequest, plannedField } from './run';

const historyUpdate: PlannedRequest = {
  requestId: 'perfect.history.w7.B.c2.update',
  systemId: 'perfect',
  blockId: 'history.w7',
  experiment: 'history',
  task: 'history_update',
  step: 'B.c2.update',
  worldSeed: 7,
  load: null,
  condition: null,
  batch: null,
  history: 'B',
  checkpoint: 2,
  half: null,
  dependsOn: [],
  writesNotebook: true,
  nonce: '0123456789abcdef',
};

describe('plannedField', () => {
  it("returns a field the request's experiment carries, typed without null", () => {
    const arm: 'A' | 'B' | 'A2' = plannedField(historyUpdate, 'history');
    const checkpoint: number = plannedField(historyUpdate, 'checkpoint');
    expect([arm, checkpoint]).toEqual(['B', 2]);
    expect(plannedField({ ...historyUpdate, checkpoint: 0 }, 'checkpoint')).toBe(0);
  });

  it('names the request and the field instead of guessing a default (arm A, checkpoint 0, load 0)', () => {
    const call = () => plannedField({ ...historyUpdate, history: null }, 'history');
    expect(call).toThrow(InvalidArgumentError);
    expect(call).toThrow(
      'plan request perfect.history.w7.B.c2.update: history: a history request (step B.c2.update) needs its history, and it is null',
    );
    expect(() => plannedField(historyUpdate, 'load')).toThrow(/plan request .*: load: /);
  });
});
