import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { BehavioralItemSetSchema } from './behavior';
import { LedgerEntrySchema, LedgerStateSchema } from './budget';
import { ChatResultSchema } from './chat-model';
import { AxisProfileSchema, ChiResultSchema, HumanCalibrationSchema } from './chi';
import { ChisEntrySchema } from './chis';
import { HistoryWorldSchema } from './history';
import { AttemptRecordSchema, RunManifestSchema } from './run';

// One valid example per cross-package schema, and for each a mutation that must fail at a named path.
const at = '2026-09-01T12:00:00.000Z';
const sha = 'a'.repeat(64);
const usage = {
  promptTokens: 812,
  completionTokens: 950,
  reasoningTokens: 700,
  totalTokens: 1762,
  costUsd: 0.00264,
};
const chatResult = {
  requestId: 'w0-mem-32-probe',
  evidenceClass: 'live_model',
  text: '[]',
  failure: 'none',
  failureDetail: null,
  finishReason: 'stop',
  truncated: false,
  requestedModel: 'moonshotai/kimi-k3',
  returnedModel: 'moonshotai/kimi-k3',
  returnedProvider: 'moonshotai/mxfp4',
  generationId: 'gen-1',
  usage,
  startedAt: at,
  finishedAt: at,
  latencyMs: 1200,
  tries: [
    {
      tryIndex: 0,
      startedAt: at,
      status: 200,
      failure: 'none',
      detail: null,
      waitMs: null,
      waitSource: null,
    },
  ],
  reservedUsd: 0.05,
  chargedUsd: 0.00264,
  redactedResponse: { id: 'gen-1' },
};
const step = (checkpoint: number, kind: string) => ({ checkpoint, kind, evidence: [] });
const steps = [
  step(0, 'baseline'),
  step(1, 'ingest'),
  step(2, 'maintenance'),
  step(3, 'maintenance'),
  step(4, 'correction'),
];
const answers = [
  ['unknown', 'unknown', 'unknown', 'unknown'],
  ['A', 'B', 'A', 'B'],
  ['A', 'B', 'A', 'B'],
  ['A', 'B', 'A', 'B'],
  ['B', 'A', 'B', 'A'],
];
const environment = (id: string) => ({
  id,
  subject: `supplier ${id}`,
  labels: { A: 'kestrel', B: 'plover' },
});
const manifest = {
  kind: 'run-manifest',
  schemaVersion: 1,
  protocol: 'cplom-longitudinal-pilot-2026-09-v1',
  createdAt: at,
  evidenceClass: 'scripted_baseline',
  systems: [
    {
      id: 'keeper',
      kind: 'scripted',
      model: 'capacity-keeper',
      providers: [],
      baseUrl: null,
      evidenceClass: 'scripted_baseline',
      reasoningEffort: null,
      maxOutputTokens: 4096,
      safetyPrice: null,
    },
  ],
  replicates: 2,
  worldSeeds: [1, 2],
  experiments: {
    memory: { loads: [32, 64], probesPerStratum: 8, batchSize: null, controlsAtLoad: 32 },
    history: { checkpoints: 5 },
    behavior: { items: 24 },
  },
  notebookCapBytes: 6000,
  ceilingUsd: 0,
  deadlineMs: 180_000,
  maxOutputTokens: 4096,
  concurrency: 8,
  retry: { maxRetries: 2, retryAfterCapMs: 30_000 },
  reservationMargin: 0.1,
  prompts: [{ name: 'memory-encode', version: '1', sha256: sha }],
  generators: [{ name: '@chi/worlds', version: '0.0.0' }],
  analysis: { seed: 20260901, resamples: 2000, level: 0.95, taus: [0.7, 0.8, 0.9] },
  failureRules: ['timeouts are model failures and are never retried'],
};

interface Case {
  readonly name: string;
  readonly schema: z.ZodType;
  readonly valid: unknown;
  readonly invalid: unknown;
  readonly invalidPath: readonly (string | number)[];
}

const cases: readonly Case[] = [
  {
    name: 'chat result',
    schema: ChatResultSchema,
    valid: chatResult,
    invalid: { ...chatResult, failure: 'oops' },
    invalidPath: ['failure'],
  },
  {
    name: 'chat result with negative cost',
    schema: ChatResultSchema,
    valid: { ...chatResult, usage: { ...usage, costUsd: null } },
    invalid: { ...chatResult, usage: { ...usage, costUsd: -1 } },
    invalidPath: ['usage', 'costUsd'],
  },
  {
    name: 'ledger reserve entry',
    schema: LedgerEntrySchema,
    valid: { kind: 'reserve', seq: 1, at, reservationId: 'r1', attemptId: 'a1', amountUsd: 0.04 },
    invalid: {
      kind: 'reserve',
      seq: 1,
      at,
      reservationId: 'r1',
      attemptId: 'a1',
      amountUsd: Number.NaN,
    },
    invalidPath: ['amountUsd'],
  },
  {
    name: 'ledger state',
    schema: LedgerStateSchema,
    valid: {
      ceilingUsd: 10,
      settledUsd: 1,
      retainedUsd: 0.5,
      openReservedUsd: 0.25,
      committedUsd: 1.75,
      remainingUsd: 8.25,
      openReservations: 1,
      stopped: null,
    },
    invalid: {
      ceilingUsd: 10,
      settledUsd: 1,
      retainedUsd: 0.5,
      openReservedUsd: 0.25,
      committedUsd: 1.75,
      remainingUsd: 8.25,
      openReservations: -1,
      stopped: null,
    },
    invalidPath: ['openReservations'],
  },
  {
    name: 'axis profile',
    schema: AxisProfileSchema,
    valid: { axes: { M: { recall: 0.8 }, R: { rule: 1 } } },
    invalid: { axes: { M: { recall: Number.POSITIVE_INFINITY } } },
    invalidPath: ['axes', 'M', 'recall'],
  },
  {
    name: 'human calibration with a zero scale',
    schema: HumanCalibrationSchema,
    valid: {
      id: 'cal-1',
      description: 'synthetic',
      synthetic: true,
      axes: { M: { recall: { mu: 0.7, s: 0.1 } } },
    },
    invalid: {
      id: 'cal-1',
      description: 'synthetic',
      synthetic: true,
      axes: { M: { recall: { mu: 0.7, s: 0 } } },
    },
    invalidPath: ['axes', 'M', 'recall', 's'],
  },
  {
    name: 'CHI result',
    schema: ChiResultSchema,
    valid: {
      value: null,
      calibrationId: null,
      reason: 'no human calibration',
      axisSimilarity: null,
      weights: {},
    },
    invalid: { value: 101, calibrationId: 'cal', reason: null, axisSimilarity: null, weights: {} },
    invalidPath: ['value'],
  },
  {
    name: 'CHIS entry',
    schema: ChisEntrySchema,
    valid: {
      kind: 'chis-entry',
      trajectoryId: 'w1/keeper/A',
      systemId: 'keeper',
      evidenceClass: 'scripted_baseline',
      worldSeed: 1,
      history: 'A',
      checkpoint: 2,
      condition: 'neutral',
      recordedAt: at,
      eventCount: 3,
      scheduledOperations: 3,
      elapsedWallMs: 1500,
      profile: { accuracy: 0.75, unknownRate: null },
      decisionVector: [0, 0.5, 1, null],
      chi: null,
      state: { sha256: sha, bytes: 5999, originalBytes: 7000, truncated: true },
      resources: {
        requests: 1,
        promptTokens: null,
        completionTokens: null,
        costUsd: 0,
        latencyMs: 3,
      },
    },
    invalid: {
      kind: 'chis-entry',
      trajectoryId: 'w1/keeper/A',
      systemId: 'keeper',
      evidenceClass: 'scripted_baseline',
      worldSeed: 1,
      history: 'A',
      checkpoint: 2,
      condition: 'neutral',
      recordedAt: at,
      eventCount: 3,
      scheduledOperations: 3,
      elapsedWallMs: 1500,
      profile: {},
      decisionVector: [0, 0.5, 2],
      chi: null,
      state: null,
      resources: {
        requests: 1,
        promptTokens: null,
        completionTokens: null,
        costUsd: 0,
        latencyMs: 3,
      },
    },
    invalidPath: ['decisionVector', 2],
  },
  {
    name: 'history world',
    schema: HistoryWorldSchema,
    valid: {
      kind: 'history-world',
      generator: { name: '@chi/worlds', version: '0.0.0' },
      seed: 7,
      environments: ['e1', 'e2', 'e3', 'e4'].map(environment),
      counterbalance: 'A favors option A in environments 1 and 3',
      histories: { A: steps, B: steps, A2: steps },
      validAnswers: { A: answers, B: answers, A2: answers },
    },
    invalid: {
      kind: 'history-world',
      generator: { name: '@chi/worlds', version: '0.0.0' },
      seed: 7,
      environments: ['e1', 'e2', 'e3'].map(environment),
      counterbalance: 'x',
      histories: { A: steps, B: steps, A2: steps },
      validAnswers: { A: answers, B: answers, A2: answers },
    },
    invalidPath: ['environments'],
  },
  {
    name: 'behavioral item set',
    schema: BehavioralItemSetSchema,
    valid: {
      kind: 'behavioral-items',
      generator: { name: '@chi/worlds', version: '0.0.0' },
      seed: 7,
      items: [],
      key: [],
    },
    invalid: {
      kind: 'behavioral-items',
      generator: { name: '@chi/worlds', version: '0.0.0' },
      seed: -1,
      items: [],
      key: [],
    },
    invalidPath: ['seed'],
  },
  {
    name: 'run manifest',
    schema: RunManifestSchema,
    valid: manifest,
    invalid: { ...manifest, analysis: { ...manifest.analysis, level: 1 } },
    invalidPath: ['analysis', 'level'],
  },
  {
    name: 'attempt record',
    schema: AttemptRecordSchema,
    valid: {
      kind: 'attempt',
      manifestSha256: sha,
      attemptId: 'a1',
      requestId: 'w0-mem-32-probe',
      systemId: 'kimi',
      blockId: 'w0/memory/32',
      phase: 'after_response',
      at,
      requestSha256: sha,
      inputBytes: 1024,
      result: chatResult,
    },
    invalid: {
      kind: 'attempt',
      manifestSha256: 'not-a-hash',
      attemptId: 'a1',
      requestId: 'w0-mem-32-probe',
      systemId: 'kimi',
      blockId: 'w0/memory/32',
      phase: 'before_send',
      at,
      requestSha256: sha,
      inputBytes: 1024,
      result: null,
    },
    invalidPath: ['manifestSha256'],
  },
];

describe.each(cases)('$name', ({ schema, valid, invalid, invalidPath }) => {
  it('accepts the valid example unchanged', () => {
    expect(schema.parse(valid)).toEqual(valid);
  });

  it('rejects the invalid example at the named path', () => {
    const result = schema.safeParse(invalid);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path)).toContainEqual(invalidPath);
  });
});
