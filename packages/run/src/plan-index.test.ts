import type { RunPlan } from '@chi/spec';
import { RunPlanSchema } from '@chi/spec/internal';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { indexPlan, type PlanIndex, type PlanParsers } from './plan-index';

/** One request of a plan shape: its block, and the earlier requests (by index) it depends on. */
interface ShapeEntry {
  readonly block: number;
  readonly deps: readonly number[];
}

/**
 * A plan of `shape`: request `r<i>` of one system in block `b<block>` (world seed = block),
 * depending on the earlier requests listed, and its blocks in order of first request. Only the
 * fields the index reads are filled in.
 */
function planOf(shape: readonly ShapeEntry[]): RunPlan {
  const requests = shape.map((entry, index) => ({
    requestId: `r${index}`,
    blockId: `b${entry.block}`,
    worldSeed: entry.block,
    systemId: 's',
    dependsOn: [...new Set(entry.deps.filter((dep) => dep < index))].map((dep) => `r${dep}`),
  }));
  const blocks = new Map<string, string[]>();
  for (const request of requests)
    blocks.set(request.blockId, [...(blocks.get(request.blockId) ?? []), request.requestId]);
  return {
    requests,
    blocks: [...blocks].map(([blockId, requestIds]) => ({ blockId, requestIds })),
  } as unknown as RunPlan;
}

/** Reads a test's requests and blocks back without a schema. */
const RAW_PARSERS: PlanParsers = {
  request: (value) => value as RunPlan['requests'][number],
  block: (value) => value as RunPlan['blocks'][number],
};

/** The index of a test's plan written as `text` (pretty JSON by default), read without a schema. */
function planIndexOf(plan: RunPlan, text = `${JSON.stringify(plan, null, 2)}\n`): PlanIndex {
  return indexPlan(Buffer.from(text), plan, 'plan.json', RAW_PARSERS);
}

/** A schema-valid request of `plan.json` (every field the schema asks for). */
function validRequest(requestId: string, blockId: string, dependsOn: readonly string[]) {
  return {
    requestId,
    systemId: 's',
    blockId,
    experiment: 'memory',
    task: 'memory_probe',
    step: 'probe.b0',
    worldSeed: 1,
    load: 32,
    condition: 'notebook',
    batch: 0,
    history: null,
    checkpoint: null,
    half: null,
    dependsOn,
    writesNotebook: false,
    nonce: '0123456789abcdef',
  };
}

/** Every answer of the index, against the parsed plan read the way the runner read it before. */
function expectAnswersAsPlan(index: PlanIndex, plan: RunPlan): void {
  const ordinalOf = new Map(plan.requests.map((request, ordinal) => [request.requestId, ordinal]));
  const blockOf = new Map(plan.blocks.map((block, ordinal) => [block.blockId, ordinal]));
  const named = new Set<number>();
  expect(index.requestCount).toBe(plan.requests.length);
  expect(index.blockCount).toBe(plan.blocks.length);
  plan.requests.forEach((request, ordinal) => {
    // Same values and the same key order as the whole plan parsed.
    expect(JSON.stringify(index.requestAt(ordinal))).toBe(JSON.stringify(request));
    expect(index.requestIdAt(ordinal)).toBe(request.requestId);
    expect(index.ordinalOf(request.requestId)).toBe(ordinalOf.get(request.requestId));
    expect([...index.dependsOn(ordinal)]).toEqual(request.dependsOn.map((id) => ordinalOf.get(id)));
    const source = request.notebookSource;
    const sourceOrdinal =
      source === undefined || source.kind === 'empty'
        ? -1
        : (ordinalOf.get(source.requestId) ?? -2);
    expect(index.notebookSourceOf(ordinal)).toBe(sourceOrdinal);
    if (sourceOrdinal >= 0) named.add(sourceOrdinal);
    expect(index.writesNotebook(ordinal)).toBe(request.writesNotebook === true);
    expect(index.blockOf(ordinal)).toBe(blockOf.get(request.blockId));
    expect(index.worldSeedOf(ordinal)).toBe(request.worldSeed);
  });
  plan.requests.forEach((_, ordinal) => {
    expect(index.isNotebookSource(ordinal)).toBe(named.has(ordinal));
  });
  plan.blocks.forEach((block, ordinal) => {
    expect(JSON.stringify(index.blockAt(ordinal))).toBe(JSON.stringify(block));
    expect(index.blockIdAt(ordinal)).toBe(block.blockId);
    expect([...index.blockRequests(ordinal)]).toEqual(
      block.requestIds.map((id) => ordinalOf.get(id)),
    );
  });
}

describe('indexPlan', () => {
  it('answers as RunPlanSchema parses plan.json, request IDs escaped or not', () => {
    const ids = ['a', 'b\u00e9', 'c"q', 'd\\e', '\u00e9'];
    const requests = ids.map((id, index) => validRequest(id, 'blk', ids.slice(0, index)));
    const plan = { kind: 'run-plan', schemaVersion: 1, requests, blocks: [] as unknown[] };
    plan.blocks.push({
      blockId: 'blk',
      experiment: 'memory',
      worldSeed: 1,
      load: 32,
      requestIds: ids,
    });
    // an ID written with a needless escape (\u0061 is "a"): the index reads the same ID
    const text = JSON.stringify(plan).replace('"requestId":"a"', '"requestId":"\\u0061"');
    const parsed = RunPlanSchema.parse(JSON.parse(text));
    const index = indexPlan(Buffer.from(text), parsed, 'plan.json');
    expectAnswersAsPlan(index, parsed);
    expect(index.ordinalOf('a')).toBe(0);
    expect(index.ordinalOf('missing')).toBe(-1);
  });

  it('answers as the parsed plan for any plan shape and any strings (property)', () => {
    const shape = fc.array(
      fc.record({ block: fc.nat(4), deps: fc.array(fc.nat(20), { maxLength: 3 }) }),
      { minLength: 1, maxLength: 20 },
    );
    // Quotes, backslashes, brackets, braces, commas and non-ASCII inside strings.
    const text = fc.string({
      unit: fc.constantFrom('"', '\\', '[', ']', '{', '}', ',', 'é', '𝄞', 'a', ' ', '\n'),
    });
    fc.assert(
      fc.property(
        shape,
        fc.array(text, { minLength: 20, maxLength: 20 }),
        fc.boolean(),
        (entries, texts, sourced) => {
          const base = planOf(entries);
          const plan = {
            kind: 'run-plan',
            requests: base.requests.map((request, ordinal) => ({
              note: texts[ordinal],
              ...request,
              writesNotebook: ordinal % 2 === 0,
              ...(sourced && ordinal > 0
                ? { notebookSource: { kind: 'request', requestId: 'r0' } }
                : {}),
            })),
            blocks: base.blocks.map((block, ordinal) => ({ note: texts[ordinal], ...block })),
            after: texts[19],
          } as unknown as RunPlan;
          expectAnswersAsPlan(planIndexOf(plan), plan);
          expectAnswersAsPlan(planIndexOf(plan, JSON.stringify(plan)), plan);
          // given a reader, the index keeps no byte of the file: blanking them changes nothing
          const bytes = Buffer.from(JSON.stringify(plan, null, 1));
          const file = Buffer.from(bytes);
          const read = (start: number, end: number) => file.toString('utf8', start, end);
          const index = indexPlan(bytes, plan, 'plan.json', RAW_PARSERS, read);
          bytes.fill(0x20);
          expectAnswersAsPlan(index, plan);
        },
      ),
    );
  });

  it('names plan.json when a request depends on one it does not plan', () => {
    const plan = planOf([{ block: 0, deps: [] }]);
    const broken = {
      ...plan,
      requests: [{ ...plan.requests[0], dependsOn: ['missing'] }],
    } as unknown as RunPlan;
    expect(() => planIndexOf(broken)).toThrow('plan.json: it names request missing');
  });
});
