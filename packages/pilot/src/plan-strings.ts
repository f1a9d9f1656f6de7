import type { RunPlan } from '@chi/spec';

/** Strings of a plan by value: the one instance every equal string of the plan is made to share. */
type StringTable = Map<string, string>;

function intern(text: string, table: StringTable): string {
  const shared = table.get(text);
  if (shared !== undefined) return shared;
  table.set(text, text);
  return text;
}

/** Replaces, in place, every string of `value` (objects and arrays, recursively) by its shared instance. */
function internStrings(value: object, table: StringTable): void {
  const slots = value as Record<string, unknown>;
  for (const key of Object.keys(slots)) {
    const item = slots[key];
    if (typeof item === 'string') slots[key] = intern(item, table);
    else if (item !== null && typeof item === 'object') internStrings(item, table);
  }
}

/**
 * Makes every equal string of a parsed plan one string in memory, in place, and returns the plan.
 * JSON parsing gives each occurrence its own copy: a request ID appears in its request, in its
 * block's `requestIds` and in the `dependsOn` of the requests that read its notebook, and a
 * system ID, block ID, task or step in many requests. Shared, they take about a third of the
 * memory (6.7 MB down to 2.0 MB for the 30-world v0.1 plan). Values, key order and therefore the
 * plan's hash are unchanged.
 */
export function shareEqualPlanStrings(plan: RunPlan): RunPlan {
  internStrings(plan, new Map());
  return plan;
}
