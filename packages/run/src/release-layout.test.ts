import { describe, expect, it } from 'vitest';
import { layoutName, RELEASE_LAYOUT_ROWS, releaseLayoutRow } from './release-layout';
import { RUN_FILES } from './run-files';

describe('the release layout rows', () => {
  it('name their run files as RUN_FILES spells them: a fixed path, else its folder', () => {
    expect(layoutName('manifest')).toBe('manifest.json');
    expect(layoutName('payload')).toBe('payloads/');
    expect(layoutName('chis')).toBe('chis/');
    expect(releaseLayoutRow('plan')).toBe(
      '| `plan.json`, `blocks.json`, `status.json` | registered requests and blocks, block status as the run recorded it, run status |',
    );
  });

  it('name only run files that a release publishes', () => {
    for (const row of Object.values(RELEASE_LAYOUT_ROWS))
      for (const name of row.names) {
        if (!('runFile' in name)) continue;
        const entry = RUN_FILES.find((candidate) => candidate.id === name.runFile);
        expect(entry?.role, name.runFile).toMatch(/^(raw|derived)$/);
      }
  });
});
