import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunPlan } from '@chi/spec';
import { RunPlanSchema } from '@chi/spec/internal';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../__fixtures__/temp-dir';
import { groupRequestOrdinals, readPlanView, requestOrdinalOf, requestsAt } from './plan-view';

/** Strings with what a JSON writer escapes or a hand-edited file may hold: quotes, `\`, non-ASCII. */
const text = fc.string({
  unit: fc.constantFrom(
    '"',
    '\\',
    '/',
    '{',
    '}',
    '[',
    ']',
    ',',
    ':',
    'é',
    '𝄞',
    'a',
    ' ',
    '\n',
    '\t',
  ),
  minLength: 1,
  maxLength: 6,
});

/** A schema-valid plan: requests in blocks, each depending on some earlier ones. */
const plans = fc
  .record({
    ids: fc.uniqueArray(text, { minLength: 1, maxLength: 12 }),
    blockIds: fc.uniqueArray(text, { minLength: 1, maxLength: 3 }),
    picks: fc.array(fc.record({ block: fc.nat(), deps: fc.array(fc.nat(), { maxLength: 2 }) }), {
      minLength: 12,
      maxLength: 12,
    }),
    step: text,
    wording: fc.boolean(),
  })
  .map(({ ids, blockIds, picks, step, wording }) => {
    const requests = ids.map((requestId, ordinal) => {
      const pick = picks[ordinal] as { block: number; deps: number[] };
      const dependsOn = [...new Set(pick.deps.filter((dep) => dep < ordinal))];
      return {
        requestId,
        systemId: step,
        blockId: blockIds[pick.block % blockIds.length] as string,
        experiment: 'behavior',
        task: 'behavior_half',
        step,
        worldSeed: ordinal,
        load: null,
        condition: null,
        batch: null,
        history: null,
        checkpoint: null,
        half: 1,
        ...(wording && ordinal % 2 === 1 ? { wording: 2 } : {}),
        dependsOn: dependsOn.map((dep) => ids[dep] as string),
        writesNotebook: ordinal % 3 === 0,
        ...(dependsOn.length > 0
          ? { notebookSource: { kind: 'request', requestId: ids[dependsOn[0] as number] } }
          : {}),
        nonce: '0123456789abcdef',
      };
    });
    const blocks = blockIds.map((blockId, ordinal) => ({
      blockId,
      experiment: 'behavior',
      worldSeed: ordinal,
      load: null,
      requestIds: requests.filter((r) => r.blockId === blockId).map((r) => r.requestId),
    }));
    return RunPlanSchema.parse({ kind: 'run-plan', schemaVersion: 1, requests, blocks });
  });

/** How `plan.json` may be written: any indentation, and non-ASCII escaped or not. */
const writings = fc.record({
  indent: fc.constantFrom('', ' ', '\t', '   '),
  escapeNonAscii: fc.boolean(),
});

function writePlan(plan: RunPlan, writing: { indent: string; escapeNonAscii: boolean }): string {
  const json = JSON.stringify(plan, null, writing.indent);
  if (!writing.escapeNonAscii) return json;
  return json.replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

describe('readPlanView', () => {
  let dir: { path: string; remove: () => Promise<void> };
  beforeAll(async () => {
    dir = await tempDir('plan-view');
  });
  afterAll(async () => dir.remove());

  it('gives exactly the parsed plan: its requests and blocks, in order, each parsed when reached (property)', () => {
    fc.assert(
      fc.property(plans, writings, (plan, writing) => {
        const path = join(dir.path, 'plan.json');
        const written = writePlan(plan, writing);
        writeFileSync(path, written);
        const parsed = RunPlanSchema.parse(JSON.parse(written));
        const view = readPlanView(Buffer.from(written), path);
        // the same values with the same key order, whole and element by element
        expect(JSON.stringify(view)).toBe(JSON.stringify(parsed));
        expect([...view.requests]).toEqual(parsed.requests);
        expect(view.blocks.map((block) => block)).toEqual(parsed.blocks);
        expect(view.requests).toHaveLength(parsed.requests.length);
        parsed.requests.forEach((request, ordinal) => {
          expect(view.requests[ordinal]).toEqual(request);
        });
        // lookups by ID and groups give what the parsed plan gives
        const ordinalOf = requestOrdinalOf(view);
        const plainOrdinalOf = requestOrdinalOf(parsed);
        for (const request of parsed.requests)
          expect(ordinalOf(request.requestId)).toBe(plainOrdinalOf(request.requestId));
        expect(ordinalOf('\u0000not planned')).toBe(-1);
        const groups = groupRequestOrdinals(view, (r) => r.blockId);
        for (const block of parsed.blocks)
          expect(requestsAt(view, groups.get(block.blockId))).toEqual(
            parsed.requests.filter((r) => r.blockId === block.blockId),
          );
      }),
      { numRuns: 60 },
    );
  });

  it('is read-only, and gives a new equal object at each access of another element', () => {
    const plan = fc.sample(plans, { numRuns: 1, seed: 7 })[0] as RunPlan;
    const path = join(dir.path, 'plan.json');
    writeFileSync(path, JSON.stringify(plan));
    const view = readPlanView(Buffer.from(JSON.stringify(plan)), path);
    expect(() => {
      (view.requests as unknown as unknown[])[0] = null;
    }).toThrow(TypeError);
    expect(view.requests[0]).toBe(view.requests[0]);
    const first = view.requests[0];
    void view.blocks[0];
    expect(view.requests.at(-1)).toEqual(plan.requests.at(-1));
    expect(view.requests[0]).toEqual(first);
  });

  it('refuses a plan that is not JSON or not a plan as parsing it whole did, naming plan.json', () => {
    const path = join(dir.path, 'plan.json');
    expect(() => readPlanView(Buffer.from('{"kind":'), path)).toThrow(/plan\.json.*expected JSON/);
    expect(() => readPlanView(Buffer.from('{"kind":"run-plan"}'), path)).toThrow(/plan\.json/);
  });
});
