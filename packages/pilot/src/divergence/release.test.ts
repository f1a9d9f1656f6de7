import { describe, expect, it } from 'vitest';
import { type DivergenceAnalysis, formatEstimate } from './analyze';
import { renderDivergenceRelease, trajectoryCsv } from './release';
import { divergenceReadme } from './release-evidence';
import { divergenceReportMarkdown } from './report';

const estimate = (value: number | null) => ({
  estimate: value,
  lower: value === null ? null : value - 0.1,
  upper: value === null ? null : value + 0.1,
  worlds: value === null ? 0 : 2,
  plannedWorlds: 2,
  reason: value === null ? 'no deviation, with a | inside' : null,
  simultaneousLower: null,
  simultaneousUpper: null,
});

const analysis: DivergenceAnalysis = {
  kind: 'divergence-analysis',
  protocol: 'divergence-v0.1',
  manifestSha256: 'ab'.repeat(32),
  primaryCheckpoint: 1,
  analysis: { seed: 1, resamples: 10, level: 0.95, intervalMethod: 'expanded_percentile' },
  seriesDefinitions: {} as DivergenceAnalysis['seriesDefinitions'],
  excludedInstances: [],
  systems: [
    {
      systemId: 'notebook-follower',
      evidenceClass: 'scripted_baseline',
      trajectory: [0, 1].map((checkpoint) => ({
        checkpoint,
        phase: checkpoint === 0 ? 'baseline' : 'exposure',
        series: {
          excess: estimate(checkpoint * 0.5),
          differentHistory: estimate(0.5),
          sameHistory: estimate(0),
          swapExcess: estimate(0.5),
          eraseExcess: estimate(0),
          shamExcess: estimate(0.5),
          swapFollowsState: estimate(null),
        },
      })),
      dynamics: [
        {
          name: 'plasticity',
          definition: 'mean |a - b|',
          inputs: 'arms',
          value: estimate(null),
        },
      ],
      familyWise: {
        grid: { critical: 2.5, familySize: 10, level: 0.95 },
        dynamics: { critical: null, familySize: 0, level: 0.95 },
      },
      taskAccuracy: [
        { arm: 'A', checkpoint: 0, value: estimate(0.5) },
        { arm: 'A', checkpoint: 1, value: estimate(null) },
      ],
    },
  ],
};

describe('divergence release text', () => {
  it('labels scripted baselines, marks the manifest primary checkpoint and escapes table pipes', () => {
    const text = divergenceReportMarkdown(analysis);
    expect(text).toContain('## notebook-follower (SCRIPTED BASELINE, not a model)');
    expect(text).toContain('> **Scripted baseline — not a measurement of any model**');
    // the family-wise statement: a pointwise interval is not a claim; the band and q are shown
    expect(text).toContain('a pointwise interval is not a claim');
    expect(text).toContain('grid: q = 2.500 over 10 cells');
    expect(text).toContain('| 1 (primary) | exposure | 0.500 \\[0.400, 0.600\\], 2/2 worlds |');
    expect(text).toContain(
      '| plasticity | null (no deviation, with a \\| inside) | mean \\|a - b\\| | arms |',
    );
    // task accuracy per arm and checkpoint beside the dynamics
    expect(text).toContain('| arm | checkpoint 0 | checkpoint 1 |');
    expect(text).toContain(
      '| A | 0.500 \\[0.400, 0.600\\] | null (no deviation, with a \\| inside) |',
    );
    expect(text.indexOf('| arm | checkpoint 0')).toBeGreaterThan(text.indexOf('| plasticity'));
    for (const line of text.split('\n').filter((l: string) => l.startsWith('| plasticity')))
      expect(line.replaceAll('\\|', '').split('|').length).toBe(6);
  });

  it('prints the simultaneous band beside the pointwise interval', () => {
    const banded = { ...estimate(0.5), simultaneousLower: 0.25, simultaneousUpper: 0.75 };
    expect(formatEstimate(banded)).toBe('0.500 [0.400, 0.600] sim. [0.250, 0.750], 2/2 worlds');
    expect(trajectoryCsv({ ...analysis })).toContain(',0.5,0.4,0.6,,,2,2,');
  });

  it('writes one CSV row per system, checkpoint and series, with the primary flag', () => {
    const rows = trajectoryCsv(analysis).trim().split('\n');
    expect(rows.length).toBe(1 + 2 * 7);
    expect(rows).toContain(
      'notebook-follower,scripted_baseline,1,exposure,true,excess,0.5,0.4,0.6,,,2,2,',
    );
    expect(rows).toContain(
      'notebook-follower,scripted_baseline,0,baseline,false,swapFollowsState,,,,,,0,2,"no deviation, with a | inside"',
    );
  });

  it('renders report.html with the scripted label, the figure inline and the excluded instances', () => {
    const excluded: DivergenceAnalysis = {
      ...analysis,
      excludedInstances: [
        {
          systemId: 'notebook-follower',
          worldSeed: 7,
          arm: 'A',
          requestId: 'notebook-follower.divergence.w7.A.c0.probe.0',
          reason: 'infrastructure failure: no_route',
        },
      ],
    };
    const html = renderDivergenceRelease(excluded).get('report.html') ?? '';
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html).toContain('notebook-follower (SCRIPTED BASELINE, not a model)</h2>');
    expect(html).toContain(
      '<p class="banner" role="note"><strong>Scripted baseline — not a measurement of any model</strong></p>',
    );
    expect(html).toContain('<figure id="figure-divergence-trajectory" class="chart">\n<svg');
    expect(html).not.toContain('divergence-trajectory-figure');
    expect(html).toContain('<td>infrastructure failure: no_route</td>');
    expect(html).toContain('<td>1 (primary)</td>');
    expect(html).toContain('Task accuracy (share of the primary choices');
    expect(html).not.toContain('<script');
  });

  it('shows the arms not applicable to a system when the analysis lists them, and only then', () => {
    const markdown = divergenceReportMarkdown({
      ...analysis,
      notApplicableArms: [
        {
          systemId: 'notebook-follower',
          arm: 'swap',
          reason: 'no instance control: the notebook cannot be exchanged',
        },
      ],
    });
    expect(markdown).toContain('## Arms not applicable');
    expect(markdown).toContain(
      '| notebook-follower | swap | no instance control: the notebook cannot be exchanged |',
    );
    expect(divergenceReportMarkdown(analysis)).not.toContain('Arms not applicable');
  });

  it('labels an undeclared endpoint as unverified, never as a live model', () => {
    const endpoint: DivergenceAnalysis = {
      ...analysis,
      systems: analysis.systems.map((system) => ({
        ...system,
        evidenceClass: 'unverified_endpoint',
      })),
    };
    const files = renderDivergenceRelease(endpoint);
    const readme = divergenceReadme(endpoint);
    for (const text of [readme, files.get('report.md') ?? '', files.get('report.html') ?? '']) {
      expect(text).toContain('Unverified endpoint');
      expect(text).toContain('notebook-follower (unverified endpoint');
      expect(text).not.toContain('(live model)');
    }
    expect(files.get('figures/divergence-trajectory.svg')).toContain('Unverified endpoint');
  });

  it('draws the figures with simultaneous bands, the same bytes every time', () => {
    const banded: DivergenceAnalysis = {
      ...analysis,
      systems: analysis.systems.map((system) => ({
        ...system,
        trajectory: system.trajectory.map((point) => ({
          ...point,
          series: {
            ...point.series,
            excess: { ...point.series.excess, simultaneousLower: -0.2, simultaneousUpper: 0.9 },
          },
        })),
      })),
    };
    const files = renderDivergenceRelease(banded);
    const svg = files.get('figures/divergence-trajectory.svg') ?? '';
    // the simultaneous band is a pale bar behind each excess point; without bands none is drawn
    expect(
      svg.match(/<rect x="[^"]+" y="[^"]+" width="8"[^>]*fill="#222222" fill-opacity="0.15"/g),
    ).toHaveLength(2);
    expect(
      renderDivergenceRelease(analysis).get('figures/divergence-trajectory.svg'),
    ).not.toContain('fill-opacity');
    expect(files.get('figures/divergence-dynamics.svg')).toContain('>plasticity</text>');
    expect(files.get('figures/divergence-accuracy.svg')).toContain('>A</text>');
    expect(files.get('figures/divergence-accuracy.svg')).toContain('>0.50</text>');
    // well-formed: no element repeats an attribute (a browser refuses to draw such an SVG)
    for (const figure of ['trajectory', 'dynamics', 'accuracy'])
      for (const tag of (files.get(`figures/divergence-${figure}.svg`) ?? '').match(
        /<[a-z]+ [^>]*>/g,
      ) ?? []) {
        const names = [...tag.matchAll(/ ([a-z-]+)="/g)].map((match) => match[1]);
        expect(new Set(names).size, tag).toBe(names.length);
      }
    expect(renderDivergenceRelease(banded)).toEqual(files);
    // report.md references each figure by its release path
    for (const name of ['trajectory', 'dynamics', 'accuracy'])
      expect(files.get('report.md')).toContain(`](figures/divergence-${name}.svg)`);
  });

  it('writes the README layout table from the run files and both ways to verify', () => {
    const readme = divergenceReadme(analysis);
    expect(readme).toContain('> **Scripted baseline — not a measurement of any model**');
    expect(readme).toContain('node code/verify.mjs .');
    expect(readme).toContain('`chi verify .`');
    // run-file names as RUN_FILES spells them; folders by their directory
    expect(readme).toContain('| `manifest.json`, `manifest.sha256` |');
    expect(readme).toContain('| `prompts/`, `requests.jsonl`, `payloads/` |');
    expect(readme).toContain('| `chis/` |');
    expect(readme).toContain('| `figures/` |');
    expect(readme).toContain('| `report.md`, `report.html` |');
  });
});
