import { describe, expect, it } from 'vitest';
import { memoryExtrasOf } from './memory-extras';
import { MemoryTaxonomyCounter } from './memory-taxonomy';
import {
  isBehaviorObservation,
  isHistoryTraceLine,
  isMemoryObservation,
  isMemoryTraceLine,
  type MemoryObservation,
  type MemoryTraceLine,
  type ObservationBase,
  observationsOf,
  type TraceLineBase,
  traceLinesOf,
} from './run-scores';
import { runScoresOf } from './test/run-scores-of';

// Hand-made scores (synthetic): an added experiment x-echo beside memory, keyed by ID only.
interface EchoObservation extends ObservationBase {
  readonly kind: 'x-echo-observation';
  readonly reply: string;
}
interface EchoTraceLine extends TraceLineBase {
  readonly reply: string;
}
const isEcho = (o: ObservationBase): o is EchoObservation =>
  (o as { kind?: unknown }).kind === 'x-echo-observation';
const isEchoTrace = (line: TraceLineBase): line is EchoTraceLine => 'reply' in line;

const where = { systemId: 'sys', worldSeed: 1, blockComplete: true };
const echo: EchoObservation = {
  ...where,
  kind: 'x-echo-observation',
  blockId: 'x-echo.w1',
  unusableRequests: [],
  reply: 'ok',
};
const memory = {
  ...where,
  kind: 'memory-observation',
  blockId: 'memory.w1.n8',
  unusableRequests: [],
  condition: 'notebook',
  load: 8,
} as unknown as MemoryObservation;
const memoryTrace = {
  ...where,
  condition: 'notebook',
  load: 8,
  trace: { probeId: 'p1', stratum: 'current', reason: 'correct', verdict: 'pass' },
} as unknown as MemoryTraceLine;
const echoTrace: EchoTraceLine = { ...where, reply: 'ok' };
const notebooks = {
  get: (key: string) => (key === 'sys|memory.w1.n8|notebook' ? 'notes' : undefined),
};
const scores = runScoresOf({
  memory: {
    observations: [memory],
    traces: [memoryTrace],
    extras: { probeNotebooks: notebooks, taxonomy: new MemoryTaxonomyCounter() },
  },
  'x-echo': { observations: [echo], traces: [echoTrace] },
});

describe('reading a run’s scores by experiment ID', () => {
  it('needs no named field: the scores hold blocks and modules only', () => {
    expect(Object.keys(scores).sort()).toEqual(['blocks', 'modules']);
  });

  it('reads an added experiment with its own guard, typed', () => {
    const observations = observationsOf(scores, 'x-echo', isEcho);
    expect(observations.map((o) => o.reply)).toEqual(['ok']);
    expect(traceLinesOf(scores, 'x-echo', isEchoTrace).map((line) => line.reply)).toEqual(['ok']);
  });

  it('reads memory the same way, and its extras through memoryExtrasOf', () => {
    expect(observationsOf(scores, 'memory', isMemoryObservation)).toEqual([memory]);
    expect(traceLinesOf(scores, 'memory', isMemoryTraceLine)).toEqual([memoryTrace]);
    const extras = memoryExtrasOf(scores);
    expect(extras.probeNotebooks.get('sys|memory.w1.n8|notebook')).toBe('notes');
    expect(extras.taxonomy).toBeInstanceOf(MemoryTaxonomyCounter);
  });

  it('gives [] for an experiment the scores do not hold, and no notebooks without memory', () => {
    expect(observationsOf(scores, 'history', isBehaviorObservation)).toEqual([]);
    const none = runScoresOf({});
    expect(memoryExtrasOf(none).probeNotebooks.get('sys|memory.w1.n8|notebook')).toBeUndefined();
    expect(memoryExtrasOf(none).taxonomy).toBeUndefined();
  });

  it('refuses a guard that does not fit, naming the experiment', () => {
    expect(() => observationsOf(scores, 'x-echo', isMemoryObservation)).toThrow(
      /observations of experiment x-echo are not of the type asked for \(isMemoryObservation\)/,
    );
    expect(() => traceLinesOf(scores, 'memory', isHistoryTraceLine)).toThrow(
      /trace lines of experiment memory/,
    );
  });
});
