import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixtureRun } from '../__fixtures__/fixture-run';
import { tempDir } from '../__fixtures__/temp-dir';
import { type RunRecords, readRunFolder } from '../run-folder/run-folder';
import { inspectLogs } from './inspect-log';

// Issue 31, item 9: "an OpenAI-compatible endpoint that does not declare itself is labelled
// `live_model`: a system reached with `--base-url` is labelled by what the user declares
// (default: an unverified endpoint), never promoted to a live model by default". The manifest,
// the report and the release README read the evidence class; this pins the Inspect export, whose
// label read any class but `live_model` as a scripted baseline.

let run: { path: string; remove: () => Promise<void> };
beforeAll(async () => {
  run = await tempDir('chi-endpoint-label-');
  await buildFixtureRun(run.path, { seeds: [11], timeouts: [] });
});
afterAll(async () => {
  await run.remove();
});

/** The fixture run's records with every system labelled `evidenceClass`, as `--base-url` would. */
async function recordsAs(evidenceClass: 'unverified_endpoint' | 'live_model'): Promise<RunRecords> {
  const records = await readRunFolder(run.path);
  return {
    ...records,
    manifest: {
      ...records.manifest,
      evidenceClass,
      systems: records.manifest.systems.map((system) => ({ ...system, evidenceClass })),
    },
  };
}

function labels(records: RunRecords): string[] {
  return [...inspectLogs(records).values()].map(
    (log) =>
      (log.eval as { metadata: { chi: { label: string; evidenceClass: string } } }).metadata.chi
        .label,
  );
}

describe('the Inspect export labels an undeclared endpoint by what the user declared', () => {
  it('an unverified endpoint: neither a live model nor a scripted baseline', async () => {
    const found = new Set(labels(await recordsAs('unverified_endpoint')));
    expect([...found]).toEqual([
      'Unverified endpoint — what served these answers was not declared; not labelled a live model',
    ]);
  });

  it('a declared live model is labelled a live model measurement; the scripted run a baseline', async () => {
    expect(new Set(labels(await recordsAs('live_model')))).toEqual(
      new Set(['live model measurement']),
    );
    expect(new Set(labels(await readRunFolder(run.path)))).toEqual(
      new Set(['scripted baseline — not a measurement of any model']),
    );
  });
});
