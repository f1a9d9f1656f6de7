import type { RunChartData } from '@chi/analysis';
import { describe, expect, it } from 'vitest';
import { WORDING_COVERAGE, wordingAgreementBlocks } from './report-wording';

describe('probe-wording invariance section', () => {
  it('states which probes the check covers: the behavioral items only', () => {
    const data = {
      run: { systems: [{ id: 'perfect', evidenceClass: 'scripted_baseline' }] },
      wordingAgreement: [
        {
          systemId: 'perfect',
          feature: 'R',
          agreement: { estimate: 1, lower: 1, upper: 1, intervalNote: null },
          pooled: { numerator: 8, denominator: 8, rate: 1 },
          worldSeeds: [1, 2],
        },
      ],
    } as unknown as RunChartData;
    const texts = wordingAgreementBlocks(data).flatMap((block) =>
      block.kind === 'paragraph' ? [block.text] : [],
    );
    expect(texts).toContain(WORDING_COVERAGE);
    expect(WORDING_COVERAGE).toContain('only the behavioral items (R, C, A and I)');
    expect(WORDING_COVERAGE).toContain('The memory probes, the history probes');
  });
});
