import { describe, expect, it } from 'vitest';
import { ValidationError } from './errors';
import {
  AnswerKeyEntrySchema,
  BlindProbeSchema,
  MemoryRecordSchema,
  MemoryWorldSchema,
  ProbeAnswerSchema,
} from './memory';
import { parseWith } from './validate';

const record = {
  key: 'k-7f3a2c',
  value: '0a1b2c3d',
  source: 'ledger-north',
  eventTime: '2026-01-01T00:00:00.000Z',
  authority: 1,
} as const;

function issuesOf(
  schema: {
    safeParse(v: unknown): {
      success: boolean;
      error?: { issues: { path: PropertyKey[]; message: string }[] };
    };
  },
  value: unknown,
) {
  const result = schema.safeParse(value);
  return result.success
    ? []
    : (result.error?.issues ?? []).map((i) => `${i.path.join('.')}: ${i.message}`);
}

describe('MemoryRecordSchema', () => {
  it('accepts a well-formed record', () => {
    expect(MemoryRecordSchema.parse(record)).toEqual(record);
  });

  it.each([
    ['authority 0', { ...record, authority: 0 }, 'authority: authority must be 1 or 2'],
    ['authority 3', { ...record, authority: 3 }, 'authority: authority must be 1 or 2'],
    [
      'upper-case hex',
      { ...record, value: '0A1B2C3D' },
      'value: expected 8 lowercase hex characters',
    ],
    [
      'non-hex value',
      { ...record, value: 'zzzzzzzz' },
      'value: expected 8 lowercase hex characters',
    ],
    [
      'seven characters',
      { ...record, value: '0a1b2c3' },
      'value: expected 8 lowercase hex characters',
    ],
    [
      'a local time',
      { ...record, eventTime: '2026-01-01T00:00:00+02:00' },
      'eventTime: expected an ISO-8601 UTC timestamp ending in Z',
    ],
    ['an empty source', { ...record, source: '' }, 'source: a record source cannot be empty'],
  ])('rejects %s', (_label, value, expected) => {
    expect(issuesOf(MemoryRecordSchema, value)).toEqual([expected]);
  });

  it('rejects a role leaking into a record (roles live in the answer key only)', () => {
    expect(issuesOf(MemoryRecordSchema, { ...record, role: 'target' })[0]).toMatch(/role/);
  });
});

describe('ProbeAnswerSchema', () => {
  it('accepts an answer and an explicit abstention', () => {
    expect(ProbeAnswerSchema.parse({ id: 'q1', value: '0a1b2c3d', source: 's' }).value).toBe(
      '0a1b2c3d',
    );
    expect(ProbeAnswerSchema.parse({ id: 'q1', value: null, source: null }).source).toBeNull();
  });

  it('rejects one null as invalid', () => {
    expect(issuesOf(ProbeAnswerSchema, { id: 'q1', value: '0a1b2c3d', source: null })).toEqual([
      'value: value and source must both be null (abstention) or both be strings',
    ]);
    expect(issuesOf(ProbeAnswerSchema, { id: 'q1', value: null, source: 's' })).toHaveLength(1);
  });

  it('rejects extra fields and missing fields', () => {
    expect(
      issuesOf(ProbeAnswerSchema, { id: 'q1', value: null, source: null, confidence: 1 }),
    ).toHaveLength(1);
    expect(issuesOf(ProbeAnswerSchema, { id: 'q1', value: null })).toHaveLength(1);
  });
});

describe('AnswerKeyEntrySchema and BlindProbeSchema', () => {
  it('requires expected value and source to be null together', () => {
    const entry = {
      id: 'q1',
      stratum: 'f',
      key: 'k',
      asOf: null,
      expectedValue: null,
      expectedSource: null,
    };
    expect(AnswerKeyEntrySchema.parse(entry)).toEqual(entry);
    expect(issuesOf(AnswerKeyEntrySchema, { ...entry, expectedValue: '0a1b2c3d' })).toEqual([
      'expectedSource: expectedValue and expectedSource must both be null (unknown) or both be set',
    ]);
    expect(issuesOf(AnswerKeyEntrySchema, { ...entry, stratum: 'x' })).toHaveLength(1);
  });

  it('keeps the stratum out of a blind probe', () => {
    expect(
      issuesOf(BlindProbeSchema, { id: 'q1', key: 'k', asOf: null, stratum: 'r' }),
    ).toHaveLength(1);
  });
});

describe('parseWith', () => {
  it('names every bad path in one error', () => {
    const world = {
      kind: 'memory-world',
      generator: { name: 'g', version: '1' },
      seed: 1,
      load: 0,
      probesPerStratum: 8,
      records: [record, { ...record, value: 'nothex!!' }],
      recordRoles: ['target', 'target'],
      probes: [],
      answerKey: [],
      counts: { targets: 1, distractors: 0, updates: 0, conflicts: 0, lures: 0, records: 2 },
    };
    let caught: unknown;
    try {
      parseWith(MemoryWorldSchema, world, 'memory world');
    } catch (error) {
      caught = error;
    }
    expect(ValidationError.isInstance(caught)).toBe(true);
    const error = caught as ValidationError;
    expect(error.issues.map((i) => i.path)).toEqual(['load', 'records[1].value']);
    expect(error.message).toBe(
      'Invalid memory world:\n  - load: load must be at least 1\n  - records[1].value: expected 8 lowercase hex characters',
    );
  });
});
