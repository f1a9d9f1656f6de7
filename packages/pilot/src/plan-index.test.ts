import { RunPlanSchema } from '@chi/spec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planIndexOf, planOf } from './__fixtures__/plan-shape';
import { indexPlan, type PlanIndex } from './plan-index';
import { planRun } from './run-create';
import { parseJsonFileText, prettyJson } from './run-folder';
import { defaultOfflineSettings } from './settings';

/** Every answer of the index, against the parsed plan read the way the runner read it before. */
function expectAnswersAsPlan(index: PlanIndex, plan: ReturnType<typeof planOf>): void {
  const ordinalOf = new Map(plan.requests.map((request, ordinal) => [request.requestId, ordinal]));
  const blockOf = new Map(plan.blocks.map((block, ordinal) => [block.blockId, ordinal]));
  const named = new Set<number>();
  expect(index.requestCount).toBe(plan.requests.length);
  expect(index.blockCount).toBe(plan.blocks.length);
  plan.requests.forEach((request, ordinal) => {
    // Same values and the same key order as the whole plan parsed.
    expect(JSON.stringify(index.requestAt(ordinal))).toBe(JSON.stringify(request));
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
  it('answers every question exactly as the parsed plan.json of a run', () => {
    const { plan } = planRun({
      settings: defaultOfflineSettings({ replicates: 2, loads: [32, 64] }),
      now: () => new Date('2026-01-02T03:04:05.000Z'),
    });
    const text = prettyJson(plan);
    const parsed = parseJsonFileText('plan.json', text, RunPlanSchema);
    expectAnswersAsPlan(indexPlan(Buffer.from(text), parsed, 'plan.json'), parsed);
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
          } as unknown as ReturnType<typeof planOf>;
          expectAnswersAsPlan(planIndexOf(plan), plan);
        },
      ),
    );
  });

  it('names plan.json when a request depends on one it does not plan', () => {
    const plan = planOf([{ block: 0, deps: [] }]);
    const broken = {
      ...plan,
      requests: [{ ...plan.requests[0], dependsOn: ['missing'] }],
    } as unknown as ReturnType<typeof planOf>;
    expect(() => planIndexOf(broken)).toThrow('plan.json: it names request missing');
  });
});
