import { describe, expect, it } from 'vitest';
import { importCyclesIn } from '../../../tooling/vitest/module-graph';

// The pilot's files import one another in one direction only (docs/architecture.md, "The pilot's
// folders"): a type the runner's steps share lives in a file that imports no step, and the
// settings' type apart from the settings, which read the experiment registry.
describe("the pilot's import graph", () => {
  it('has no cycle, type-only imports included', () => {
    expect(importCyclesIn(import.meta.dirname)).toEqual([]);
  });
});
