import { describe, expect, it } from 'vitest';
import { sampleChartData } from './__fixtures__/sample-chart-data';
import type { CaseExample } from './case-examples';
import { buildFigures } from './figures';
import { renderHtml, renderMarkdown } from './render-report';
import { buildReportDocument, type ReportInput } from './report-document';

function input(overrides: Partial<ReportInput> = {}): ReportInput {
  const data = sampleChartData();
  return {
    data,
    figures: buildFigures(data).map((definition) => ({
      definition,
      svg: `<svg id="${definition.id}-figure"><title>${definition.title}</title></svg>\n`,
    })),
    caseExamples: [],
    ...overrides,
  };
}

const example: CaseExample = {
  systemId: 'capacity-keeper',
  condition: 'notebook',
  load: 32,
  worldSeed: 1,
  stratum: 't',
  notebookExcerpt: 'k-0001 = 1234abcd (src-a, 2026-01-01)',
  trace: {
    probeId: 'p7f3',
    stratum: 't',
    key: 'k-0001',
    asOf: '2026-01-02T00:00:00.000Z',
    eligibleRecords: [
      {
        key: 'k-0001',
        value: '1234abcd',
        source: 'src-a',
        eventTime: '2026-01-01T00:00:00.000Z',
        authority: 1,
      },
    ],
    winnerIndex: 0,
    excludedByCutoff: [
      {
        key: 'k-0001',
        value: 'ffff0000',
        source: 'src-b',
        eventTime: '2026-01-05T00:00:00.000Z',
        authority: 1,
      },
    ],
    expectedValue: '1234abcd',
    expectedSource: 'src-a',
    answer: { id: 'p7f3', status: 'answered', value: 'ffff0000', source: 'src-b', detail: null },
    verdict: 'fail',
    reason: 'as_of_error',
    matchedRecord: {
      key: 'k-0001',
      value: 'ffff0000',
      source: 'src-b',
      eventTime: '2026-01-05T00:00:00.000Z',
      authority: 1,
    },
  },
};

describe('buildReportDocument + renderers', () => {
  it('repeats the scripted-baseline banner at the top of every section', () => {
    const markdown = renderMarkdown(buildReportDocument(input()));
    const sections = markdown.split('\n## ').slice(1);
    expect(sections.length).toBeGreaterThanOrEqual(7);
    for (const section of sections)
      expect(section).toContain('> **Scripted baseline — not a measurement of any model**');
  });

  it('shows CHI as null with its reason, EIMC with its status and never as zero', () => {
    const markdown = renderMarkdown(buildReportDocument(input()));
    expect(markdown).toContain('CHI: null. No human calibration is supplied');
    expect(markdown).toContain(
      '| capacity-keeper | 0.9 | null | no passing load (not zero) | none | no | null (smallest load fails) | none | 200 of 200 | 1 |',
    );
    expect(markdown).toContain(
      '| perfect | 0.8 | 64 | lower bound (largest tested load passes: right-censored) | 32, 64 | no | 64 | none | 0 of 200 | 1 |',
    );
  });

  it('lists every claim of the evidence map the protocol names', () => {
    const markdown = renderMarkdown(buildReportDocument(input()));
    for (const claim of [
      'Pharmaceutical logistics savings',
      'Production throughput',
      'QPM superiority',
      'Every prior CPLOM claim',
    ]) {
      expect(markdown).toContain(`| ${claim} |`);
    }
  });

  it('puts denominators and missingness next to each chart', () => {
    const markdown = renderMarkdown(buildReportDocument(input()));
    expect(markdown).toContain(
      'Denominators: worlds used per point: 1 (complete in the cell: 1–3; planned: 3); incomplete blocks (excluded, published separately): 4; missing blocks: 0.',
    );
    expect(markdown).toContain(
      '| memory.w2.n64 | memory | 2 | 64 | incomplete | perfect.memory.w2.n64.probe.b0: http\\_retryable after 2 retries |',
    );
    // worlds used / complete in the cell / planned: the N=32 point uses the curve's one world
    expect(markdown).toContain(
      '| capacity-keeper | N=32 | 1 / 3 / 3 (0, 0) exploratory | 0.850 (no interval: fewer than two complete worlds) |',
    );
    expect(markdown).toContain(
      '| capacity-keeper | N=32 blank | 3 / 3 / 3 (0, 0) exploratory | 0.100 \\[0.050, 0.150\\] |',
    );
  });

  it("lists every world's decision vectors with invalid decisions marked, not zeroed", () => {
    const markdown = renderMarkdown(buildReportDocument(input()));
    expect(markdown).toContain(
      '| capacity-keeper | 1 | B | complete | 0.5 0.5 0.5 0.5 | 1 1 0 × | 1 1 0 × | 1 1 0 × | 1 1 0 × |',
    );
  });

  it('renders case examples with the notebook excerpt and the trace', () => {
    const markdown = renderMarkdown(buildReportDocument(input({ caseExamples: [example] })));
    expect(markdown).toContain(
      'capacity-keeper · N=32 · stratum t · world 1 · FAIL (as\\_of\\_error)',
    );
    expect(markdown).toContain('k-0001 = 1234abcd (src-a, 2026-01-01)');
    expect(markdown).toContain('verdict: fail (as_of_error)');
    expect(markdown).toContain(
      '  1. value 1234abcd  source src-a  time 2026-01-01T00:00:00.000Z  authority 1  <- winner',
    );
  });

  it('writes a self-contained HTML page: inline SVG, no scripts, no external loads, escaped text', () => {
    const html = renderHtml(buildReportDocument(input({ caseExamples: [example] })), 'Report <x>');
    expect(html).toContain('<title>Report &lt;x&gt;</title>');
    expect(html).toContain("default-src 'none'");
    expect(html).not.toMatch(/<script|<link|<img|src=|href="http/);
    expect(html).toContain(
      '<figure id="figure-memory-capacity" class="chart">\n<svg id="memory-capacity-figure">',
    );
    expect(html).toContain(
      '<p class="banner" role="note"><strong>Scripted baseline — not a measurement of any model</strong></p>',
    );
    expect(html).toContain('authority 1  &lt;- winner');
  });

  it('is a pure function: the same input gives the same bytes', () => {
    const a =
      renderHtml(buildReportDocument(input()), 't') + renderMarkdown(buildReportDocument(input()));
    const b =
      renderHtml(buildReportDocument(input()), 't') + renderMarkdown(buildReportDocument(input()));
    expect(a).toBe(b);
  });
});
