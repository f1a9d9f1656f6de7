import type { PlannedRequest } from '@chi/spec';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineExperiment, type Experiment } from '../experiment';
import { defineExperimentScorer, type ScorerRequest } from '../experiment-scorer';
import { experimentDeclarationProblems } from './declaration-problems';
import { experimentPlanProblems } from './plan-problems';
import { experimentScorerProblems } from './scorer-problems';

function request(
  systemId: string,
  step: string,
  fields: Partial<PlannedRequest> = {},
): PlannedRequest {
  return {
    systemId,
    blockId: 'x-echo.w1',
    worldSeed: 1,
    load: null,
    condition: null,
    batch: null,
    history: null,
    checkpoint: null,
    half: null,
    requestId: `${systemId}.x-echo.w1.${step}`,
    experiment: 'x-echo',
    task: 'x-echo',
    step,
    dependsOn: [],
    writesNotebook: false,
    nonce: step === 'say' ? '0123456789abcdef' : 'fedcba9876543210',
    ...fields,
  };
}

const echo: Experiment<{ items: number }> = defineExperiment<{ items: number }>({
  specificationVersion: 'chi-experiment-v1',
  id: 'x-echo',
  title: 'Echo',
  slots: [{ axis: 'I', coverage: 'partial', what: 'nothing: a test module' }],
  procedure: 'One request per world.',
  taskScore: 'The reply repeats the nonce.',
  features: [
    {
      id: 'x-echo-features',
      version: 1,
      features: ['echoed'],
      coding: 'test only',
      schema: z.strictObject({ echoed: z.boolean() }),
    },
  ],
  control: 'None.',
  seedPassages: [{ source: 'framework', quote: 'Each states a procedure' }],
  parameters: z.strictObject({ items: z.int().min(1) }),
  kinds: ['x-echo'],
  tasks: ['x-echo'],
  parametersFrom: () => ({ items: 1 }),
  parametersOf: () => ({ items: 1 }),
  plan: () => [],
  render: ({ request: planned }) => ({
    task: planned.task,
    template: { name: 'x-echo', version: '1' },
    messages: [{ role: 'user', content: planned.nonce }],
  }),
});

const echoScorer = defineExperimentScorer<{ items: number }>({
  specificationVersion: 'chi-scorer-v1',
  experimentId: 'x-echo',
  title: 'Echo',
  parametersOf: () => ({ items: 1 }),
  columns: ['echoed'],
  estimands: [{ column: 'echoed', label: 'share of replies echoing the nonce' }],
  scoreWorld: ({ requests }) => ({
    values: {
      echoed:
        requests.length === 0
          ? null
          : requests.filter((r) => r.reply === r.request.nonce).length / requests.length,
    },
    traces: [],
  }),
  notes: ['A test scorer.'],
});

const sample = {
  params: { items: 1 },
  worldSeed: 1,
  systemId: 'a',
  requests: [
    {
      request: request('a', 'say'),
      messages: null,
      reply: '0123456789abcdef',
      unusableReason: null,
    },
  ] satisfies ScorerRequest[],
};

describe('the experiment contract suite (@chi/experiment/test)', () => {
  it('finds nothing wrong with a complete module and scorer', () => {
    expect(experimentDeclarationProblems(echo)).toEqual([]);
    expect(experimentPlanProblems(echo, [request('a', 'say'), request('b', 'say')])).toEqual([]);
    expect(experimentScorerProblems(echoScorer, [sample])).toEqual([]);
  });

  it('names each missing declaration', () => {
    const broken = { ...echo, id: 'Echo', procedure: ' ', slots: [], seedPassages: [], tasks: [] };
    expect(experimentDeclarationProblems(broken)).toEqual([
      'id "Echo" must match ^[a-z][a-z0-9-]*$',
      'procedure is empty',
      'slots: declares no axis',
      'seedPassages: quote the seed passage it implements',
      'tasks: declares no request task',
    ]);
  });

  it('names a plan that depends on a later request, a foreign task and unequal systems', () => {
    const problems = experimentPlanProblems(echo, [
      request('a', 'read', { dependsOn: ['a.x-echo.w1.write'] }),
      request('a', 'write', { task: 'x-other' }),
      request('b', 'read'),
    ]);
    expect(problems).toEqual([
      'plan: a.x-echo.w1.read depends on a.x-echo.w1.write, not planned before it',
      'plan: a.x-echo.w1.write has task x-other, not declared in tasks',
      'plan: b does not get the same registered requests as a',
    ]);
  });

  it('names a scorer that throws on model output, is not pure, or gives undeclared columns', () => {
    let calls = 0;
    const fragile = defineExperimentScorer<{ items: number }>({
      ...echoScorer,
      estimands: [{ column: 'missing', label: 'not a column' }],
      scoreWorld: ({ requests }) => {
        calls += 1;
        if (requests.some((r) => r.reply === null)) throw new Error('no reply');
        return { values: { echoed: calls, extra: Number.NaN }, traces: [] };
      },
    });
    const problems = experimentScorerProblems(fragile, [sample]);
    expect(problems).toContain('estimands: missing is not a declared column');
    expect(problems).toContain(
      'scoreWorld (sample 0, world 1, a) with every reply missing threw no reply',
    );
    expect(problems).toContain('scoreWorld (sample 0, world 1, a) gives a different result twice');
    expect(problems).toContain(
      'scoreWorld (sample 0, world 1, a) gives columns echoed, extra, not echoed',
    );
    expect(problems).toContain(
      'scoreWorld (sample 0, world 1, a) gives extra = NaN, not a finite number or null',
    );
  });

  it('names a scorer that throws when a request never resolved (no logged result)', () => {
    const timed = defineExperimentScorer<{ items: number }>({
      ...echoScorer,
      scoreWorld: ({ requests }) => {
        const finished = requests.map((r) => {
          if (r.result === null) throw new Error('no result');
          return r.reply;
        });
        return { values: { echoed: finished.length }, traces: [] };
      },
    });
    expect(experimentScorerProblems(timed, [sample])).toEqual([
      'scoreWorld (sample 0, world 1, a) with no request resolved threw no result',
    ]);
  });
});
