import type { RunChartData } from '@chi/analysis';
import { sampleChartData } from '@chi/analysis/test';
import { buildFigures } from '@chi/figures';
import { describe, expect, it } from 'vitest';
import type { CaseExample } from '../release/case-examples';
import { renderHtml, renderMarkdown } from './render-report';
import { buildCasesDocument } from './report-cases';
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
  it('shows the scripted-baseline banner once, and its short label on every caption', () => {
    const blocks = buildReportDocument(input());
    const markdown = renderMarkdown(blocks);
    expect(markdown.split('Scripted baseline — not a measurement of any model').length - 1).toBe(1);
    expect(
      markdown.indexOf('> **Scripted baseline — not a measurement of any model**'),
    ).toBeLessThan(markdown.indexOf('## Summary'));
    const captions = blocks.flatMap((b) =>
      b.kind === 'table' ? [b.caption] : b.kind === 'figure' ? [b.figure.caption] : [],
    );
    expect(captions.length).toBeGreaterThan(10);
    for (const caption of captions) expect(caption).toMatch(/^\[Scripted baseline\] [^[]/);
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

  it('renders case examples in their own linked file with the notebook excerpt and the trace', () => {
    const report = renderMarkdown(buildReportDocument(input({ caseExamples: [example] })));
    expect(report).not.toContain('k-0001 = 1234abcd');
    expect(report).toContain('- [Case examples](report-cases.md)');
    const markdown = renderMarkdown(buildCasesDocument(sampleChartData(), [example]));
    expect(markdown).toContain('- [Back to the report](report.md)');
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
    expect(html).toContain('<li><a href="report-cases.html">Case examples</a></li>');
    const cases = renderHtml(buildCasesDocument(sampleChartData(), [example]), 'Cases');
    expect(cases).toContain('authority 1  &lt;- winner');
    expect(cases).not.toMatch(/<script|<link|<img|src=|href="http/);
  });

  it('is a pure function: the same input gives the same bytes', () => {
    const a =
      renderHtml(buildReportDocument(input()), 't') + renderMarkdown(buildReportDocument(input()));
    const b =
      renderHtml(buildReportDocument(input()), 't') + renderMarkdown(buildReportDocument(input()));
    expect(a).toBe(b);
  });

  it('opens with the summary, then the contents, then the sections in a fixed order', () => {
    const blocks = buildReportDocument(input());
    const h2 = blocks.flatMap((b) => (b.kind === 'heading' && b.level === 2 ? [b.id] : []));
    expect(h2).toEqual([
      'summary',
      'contents',
      'method',
      'memory',
      'taxonomy',
      'history',
      'behavior',
      'resources',
      'missingness',
      'cases',
      'evidence-map',
      'glossary',
      'files',
    ]);
    const contents = blocks.find((b) => b.kind === 'links');
    expect(contents?.kind === 'links' && contents.items.map((i) => i.href)).toEqual(
      h2.slice(2).map((id) => `#${id}`),
    );
    // before the contents: the summary's one table and the one headline figure, nothing else
    const contentsAt = blocks.findIndex((b) => b.kind === 'heading' && b.id === 'contents');
    const before = blocks.slice(0, contentsAt);
    expect(before.filter((b) => b.kind === 'table')).toHaveLength(1);
    expect(before.flatMap((b) => (b.kind === 'figure' ? [b.figure.id] : []))).toEqual([
      'memory-capacity',
    ]);
    expect(before.filter((b) => b.kind === 'list')).toEqual([]);
  });

  it('gives an included experiment without data its heading and its absent sentence, no figure or table', () => {
    const full = sampleChartData();
    const data: RunChartData = {
      ...full,
      experiments: {
        ...full.experiments,
        history: { history: [], historyDistances: [], historyDynamics: [], historyVectors: [] },
        behavior: { behavior: [] },
      },
    };
    const blocks = buildReportDocument(input({ data }));
    for (const [id, sentence] of [
      ['history', 'The run has no history experiment.'],
      ['behavior', 'The run has no behavioral experiment.'],
    ] as const) {
      const at = blocks.findIndex((b) => b.kind === 'heading' && b.id === id);
      expect(at).toBeGreaterThan(-1);
      expect(blocks[at + 1]).toEqual({ kind: 'paragraph', text: sentence });
      const next = blocks[at + 2];
      expect(next?.kind).toBe('heading');
    }
  });

  it('omits the sections of the pilot experiments the run leaves out, with their contents entries and figures', () => {
    const headings = (blocks: ReturnType<typeof buildReportDocument>) =>
      blocks.flatMap((b) => (b.kind === 'heading' && b.level === 2 ? [b.id] : []));
    const figureIds = (blocks: ReturnType<typeof buildReportDocument>) =>
      blocks.flatMap((b) => (b.kind === 'figure' ? [b.figure.id] : []));
    const everything = buildReportDocument(input());
    // absent means every experiment (the default pilot): the same blocks as naming all three
    expect(
      buildReportDocument(input({ experiments: { memory: true, history: true, behavior: true } })),
    ).toEqual(everything);
    const noHistory = buildReportDocument(
      input({ experiments: { memory: true, history: false, behavior: true } }),
    );
    expect(headings(noHistory)).toEqual(headings(everything).filter((id) => id !== 'history'));
    expect(figureIds(noHistory).some((id) => id.startsWith('history'))).toBe(false);
    const none = buildReportDocument(
      input({ experiments: { memory: false, history: false, behavior: false } }),
    );
    expect(headings(none)).toEqual(
      headings(everything).filter(
        (id) => !['memory', 'taxonomy', 'history', 'behavior'].includes(id),
      ),
    );
    const contents = none.find((b) => b.kind === 'links');
    expect(contents?.kind === 'links' && contents.items.map((i) => i.href)).toEqual(
      headings(none)
        .slice(2)
        .map((id) => `#${id}`),
    );
    expect(figureIds(everything).length).toBeGreaterThan(figureIds(none).length);
    expect(figureIds(none).filter((id) => /^(memory|failure|history|behavior)/.test(id))).toEqual(
      [],
    );
    const figureNumbers = none.flatMap((b) => (b.kind === 'figure' ? [b.number] : []));
    expect(figureNumbers).toEqual(figureNumbers.map((_, index) => index + 1));
  });

  it('gives the summary table memory columns only when the run includes memory', () => {
    const summaryColumns = (overrides: Partial<ReportInput>) => {
      const blocks = buildReportDocument(input(overrides));
      const table = blocks.find((b) => b.kind === 'table');
      return table?.kind === 'table' ? table.columns : [];
    };
    const withMemory = summaryColumns({});
    expect(withMemory.some((c) => c.startsWith('EIMC τ'))).toBe(true);
    expect(withMemory.some((c) => c.startsWith('Q_M N = '))).toBe(true);
    const optInOnly = summaryColumns({
      experiments: { memory: false, history: false, behavior: false },
    });
    expect(optInOnly.some((c) => c.startsWith('EIMC') || c.startsWith('Q_M'))).toBe(false);
    expect(optInOnly).toContain('Failed');
  });

  it('numbers figures in reading order', () => {
    const figures = buildReportDocument(input()).flatMap((b) =>
      b.kind === 'figure' ? [[b.number, b.figure.id] as const] : [],
    );
    expect(figures.map(([n]) => n)).toEqual(figures.map((_, i) => i + 1));
    expect(figures.map(([, id]) => id)).toEqual([
      'memory-capacity',
      'memory-components',
      'memory-controls',
      'failure-taxonomy',
      'history-accuracy',
      'history-unknown',
      'history-distance',
      'behavior',
    ]);
  });

  it('tabulates per system EIMC with status, Q_M at the extreme loads, divergence, behavior, worlds and cost', () => {
    const markdown = renderMarkdown(buildReportDocument(input()));
    const summary = markdown.slice(markdown.indexOf('## Summary'), markdown.indexOf('## Contents'));
    expect(summary).toContain(
      '| System | EIMC τ 0.7 \\[range\\] | EIMC τ 0.8 \\[range\\] | EIMC τ 0.9 \\[range\\] | Q\\_M N = 32 \\[95% CI\\] | Q\\_M N = 64 \\[95% CI\\] | Excess divergence, checkpoint 3 \\[95% CI\\] | R | C | A | I | Frame change | Worlds | Failed | Cost |',
    );
    expect(summary).toMatch(
      /\| capacity-keeper \| 32 \| 32 \| none \| 0\.850 \(no interval: fewer than two complete worlds\) \| 0\.650 \(no interval: fewer than two complete worlds\) \| [^|]+ \| [^|]+ \| [^|]+ \| [^|]+ \| [^|]+ \| [^|]+ \| 1 of 3 \| \d+ of \d+ \| \$\d\.\d{4} \|/,
    );
    // the uncapped reference comes after the evaluated systems, labelled
    expect(summary.indexOf('| perfect (reference) | ≥ 64 |')).toBeGreaterThan(
      summary.indexOf('| capacity-keeper |'),
    );
    // one table, no per-system walls of bullets
    expect(summary).not.toMatch(/^- /m);
  });

  it('lists the uncapped system as a reference condition with the cap in bytes, and defines every term', () => {
    const blocks = buildReportDocument(input());
    const tables = blocks.flatMap((b) => (b.kind === 'table' ? [b] : []));
    const evaluated = tables.find((t) => t.caption.endsWith('Evaluated systems.'));
    expect(evaluated?.rows.map((r) => [r[0], r[4]])).toEqual([
      ['capacity-keeper', 'capped at 6000 bytes'],
    ]);
    const reference = tables.find((t) => t.caption.includes('Reference conditions'));
    expect(reference?.rows.map((r) => r[0])).toEqual(['perfect']);
    const glossary = tables.find((t) =>
      t.caption.endsWith('Every term and symbol of this report.'),
    );
    const terms = glossary?.rows.map((r) => r[0]) ?? [];
    for (const term of ['CHI', 'CHIS', 'CPLOM', 'EIMC_tau', 'Q_M', 'f', 'tau', 'D(X,Y)'])
      expect(terms).toContain(term);
    expect(glossary?.rows.find((r) => r[0] === 'EIMC_tau')?.[1]).toMatch(
      /^Effective Indexed Memory Capacity/,
    );
    expect(renderMarkdown(blocks)).not.toContain('notebookCapBytes');
  });

  it('gives resource costs their own section and says why a figure is missing', () => {
    const data = sampleChartData();
    const markdown = renderMarkdown(buildReportDocument(input()));
    expect(markdown).toContain('## Resource costs');
    // the sample run is all scripted with zero tokens and cost: nothing to draw
    expect(data.resources.every((r) => r.costUsd === 0)).toBe(true);
    expect(markdown).toContain('No resource figure: nothing to draw. Not drawn: Tokens');
  });

  it('states corpus bytes and tokens per load beside the resource costs (issue 31)', () => {
    const data = sampleChartData();
    const withCorpus = {
      ...data,
      corpus: [
        {
          load: 32,
          requests: 8,
          bytesMin: 9000,
          bytesMean: 9500,
          bytesMax: 10000,
          reportedPromptTokensMean: null,
          requestsWithTokens: 0,
        },
        {
          load: 64,
          requests: 8,
          bytesMin: 18000,
          bytesMean: 19000.4,
          bytesMax: 20000,
          reportedPromptTokensMean: 4800,
          requestsWithTokens: 4,
        },
      ],
    };
    const markdown = renderMarkdown(buildReportDocument(input({ data: withCorpus })));
    expect(markdown).toContain('Corpus per memory load');
    expect(markdown).toContain('| 32 | 8 | 9000 / 9500 / 10000 | 2375 | not reported |');
    expect(markdown).toContain('| 64 | 8 | 18000 / 19000 / 20000 | 4750 | 4800 (4) |');
    // Chart data written before the field existed renders without the table.
    expect(renderMarkdown(buildReportDocument(input()))).not.toContain('Corpus per memory load');
  });
});
