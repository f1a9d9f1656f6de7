import {
  type BootstrapRegistry,
  chartDataFile,
  type IntervalEstimate,
  type ObservationBase,
  type RunChartData,
  type RunScores,
} from '@chi/analysis';
import { type ExperimentAnalysis, worldIndex } from '@chi/analysis/internal';
import type { AnyExperimentScorer } from '@chi/experiment';
import {
  BUILT_IN_FIGURES,
  buildFigures,
  type ExperimentFigures,
  type FigureDefinition,
  renderFigureSvg,
} from '@chi/figures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixtureRun } from './__fixtures__/fixture-run';
import { tempDir } from './__fixtures__/temp-dir';
import { renderMarkdown } from './document/render-report';
import type { ReportBlock } from './document/report-block';
import { buildReportDocument } from './document/report-document';
import {
  type ExperimentSection,
  figureBlocks,
  heading,
  type ReportInput,
} from './document/report-section';
import { BUILT_IN_SECTIONS } from './document/report-sections';
import { type RunRecords, readRunFolder } from './run-folder/run-folder';
import { analyzeRun } from './scoring/analyze-run';
import { scoreRun } from './scoring/score-run';

// An experiment added from outside (`x-tally`, a test fixture) contributes an analysis part, a
// figure and a report section through the three registries: its scorer's `analysis` (which
// analyzeRun runs), an ExperimentFigures entry (buildFigures) and an ExperimentSection entry
// (buildReportDocument). None of analyze-run.ts, figures.ts or report-document.ts names it, or
// any experiment (core-names-no-experiment.test.ts).

const TALLY = 'x-tally';
const SEEDS = [11, 12, 13];

/** One system's tally score on one world: whether its recalled count was right. */
interface TallyObservation extends ObservationBase {
  readonly kind: 'x-tally-observation';
  readonly correct: number;
}

/** The tally's part of the chart data: per system, the share of worlds with a correct count. */
interface TallyPart {
  readonly tally: readonly { readonly systemId: string; readonly correct: IntervalEstimate }[];
}

const tallyIn = worldIndex<TallyObservation>((o) => o.systemId);

/** Its analysis: one mean over the worlds complete for each system, on the run's one bootstrap. */
const tallyAnalysis: ExperimentAnalysis<
  readonly {
    systemId: string;
    worlds: number[];
    estimand: ReturnType<BootstrapRegistry['define']>;
  }[],
  TallyPart
> = {
  id: TALLY,
  estimands(context, registry) {
    return context.systems.map((systemId) => {
      const worlds = SEEDS.filter(
        (seed) => tallyIn(context.world(seed).observations(TALLY), systemId) !== undefined,
      );
      const mean = registry.meanOf(
        new Set(worlds),
        (seed) =>
          (tallyIn(context.world(seed).observations(TALLY), systemId) as TallyObservation).correct,
      );
      return { systemId, worlds, estimand: registry.define(`x-tally|${systemId}`, mean) };
    });
  },
  results(_context, estimands, results) {
    return {
      tally: estimands.map(({ systemId, worlds, estimand }) => ({
        systemId,
        correct: results.interval(estimand, {
          used: worlds.length,
          complete: worlds.length,
          planned: SEEDS.length,
        }),
      })),
    };
  },
};

/** The tally's scorer as the run was scored with it: only its analysis capability matters here. */
const tallyScorer = {
  specificationVersion: 'chi-scorer-v1',
  experimentId: TALLY,
  title: 'Tally (test fixture)',
  parametersOf: () => null,
  notes: [],
  analysis: tallyAnalysis,
} as AnyExperimentScorer;

function tallyPartOf(data: RunChartData): TallyPart | undefined {
  return data.experiments[TALLY] as TallyPart | undefined;
}

/** Its figure: the share of correct counts per system. */
const tallyFigures: ExperimentFigures = {
  experimentId: TALLY,
  figures: (data) => {
    const part = tallyPartOf(data);
    if (part === undefined) return [null];
    const rows = part.tally.map((row) => ({
      systemId: row.systemId,
      correct: row.correct.estimate,
    }));
    const figure: FigureDefinition = {
      id: 'x-tally',
      title: 'Tally: share of worlds with the count recalled correctly',
      description: 'One bar per system: the share of worlds whose recalled count was right.',
      spec: {
        $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
        data: { values: rows },
        mark: 'bar',
        encoding: {
          x: { field: 'systemId', type: 'nominal' },
          y: { field: 'correct', type: 'quantitative' },
        },
      },
      svgPath: 'figures/x-tally.svg',
      caption: 'Tally (test fixture): world mean of correct counts per system.',
      columns: ['systemId', 'correct'],
      rows,
    };
    return [figure];
  },
};

/** Its report section: a column of the summary's headline table, a heading, its figure and a table. */
const tallySection: ExperimentSection = {
  experimentId: TALLY,
  summary: {
    columns: (data) => [
      {
        header: 'Tally correct',
        cell: (id) =>
          String(tallyPartOf(data)?.tally.find((row) => row.systemId === id)?.correct.estimate),
      },
    ],
  },
  sections: [
    (input: ReportInput): ReportBlock[] => [
      heading(2, 'Tally (test fixture)', 'x-tally'),
      ...figureBlocks(input, 'x-tally'),
      {
        kind: 'table',
        caption: 'Tally: share of worlds with the count recalled correctly.',
        columns: ['System', 'Correct'],
        rows: (tallyPartOf(input.data)?.tally ?? []).map((row) => [
          row.systemId,
          String(row.correct.estimate),
        ]),
      },
    ],
  ],
};

/** The run's scores with the tally's beside them: `keeper` counts right on every world, `forgetful` on one. */
function withTally(scores: RunScores): RunScores {
  const observations: TallyObservation[] = SEEDS.flatMap((worldSeed, index) =>
    ['keeper', 'forgetful'].map((systemId) => ({
      kind: 'x-tally-observation' as const,
      systemId,
      blockId: `${TALLY}.w${worldSeed}`,
      worldSeed,
      blockComplete: true,
      unusableRequests: [],
      correct: systemId === 'keeper' || index === 0 ? 1 : 0,
    })),
  );
  const modules = new Map(scores.modules);
  modules.set(TALLY, { scorer: tallyScorer, observations, traces: [], worlds: null, extras: {} });
  return { blocks: scores.blocks, modules };
}

describe('an added experiment contributes through the registries, the core unchanged', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let records: RunRecords;
  beforeAll(async () => {
    dir = await tempDir('experiment-registries');
    await buildFixtureRun(dir.path, { seeds: SEEDS, resamples: 50 });
    records = await readRunFolder(dir.path);
  });
  afterAll(async () => dir.remove());

  it('analyzeRun keys its part by its ID, on the one bootstrap, and moves no other number', () => {
    const without = analyzeRun(records, scoreRun(records));
    const data = analyzeRun(records, withTally(scoreRun(records)));
    const part = tallyPartOf(data);
    expect(part?.tally.map((row) => [row.systemId, row.correct.estimate])).toEqual([
      ['keeper', 1],
      ['forgetful', 1 / 3],
    ]);
    expect(part?.tally[0]?.correct).toMatchObject({ worlds: 3, plannedWorlds: 3 });
    // the added estimands join the bootstrap after the built-in ones: theirs keep every number
    for (const id of ['memory', 'history', 'behavior'])
      expect(data.experiments[id]).toEqual(without.experiments[id]);
    expect(data.comparisons).toEqual(without.comparisons);
    // chart-data.json holds the registered parts only: the added part stays out of it
    expect(chartDataFile(data)).toEqual(chartDataFile(without));
  });

  it('buildFigures draws its figure after the built-in experiments, before the run figures', () => {
    const data = analyzeRun(records, withTally(scoreRun(records)));
    const ids = buildFigures(data, [...BUILT_IN_FIGURES, tallyFigures]).map((f) => f.id);
    expect(ids).toContain('x-tally');
    expect(ids.indexOf('x-tally')).toBeGreaterThan(ids.indexOf('behavior'));
    expect(ids.indexOf('x-tally')).toBeLessThan(ids.indexOf('resources'));
    // without its registry entry there is no such figure
    expect(buildFigures(data).map((f) => f.id)).not.toContain('x-tally');
  });

  it('buildReportDocument shows its section, with its figure, after the built-in sections', async () => {
    const data = analyzeRun(records, withTally(scoreRun(records)));
    const figures = [];
    for (const definition of buildFigures(data, [...BUILT_IN_FIGURES, tallyFigures]))
      figures.push({ definition, svg: await renderFigureSvg(definition) });
    const input = { data, figures, caseExamples: [] };
    const markdown = renderMarkdown(
      buildReportDocument(input, [...BUILT_IN_SECTIONS, tallySection]),
    );
    const section = markdown.indexOf('## Tally (test fixture)');
    expect(section).toBeGreaterThan(markdown.indexOf('## Behavioral probes'));
    expect(section).toBeLessThan(markdown.indexOf('## Resource costs'));
    expect(markdown.slice(section)).toMatch(/Tally: share of worlds with the count recalled/);
    expect(markdown).toContain('| keeper | 1 |');
    // its column of the summary's headline table, after the built-in experiments' columns
    const header = markdown.split('\n').find((line) => line.startsWith('| System | EIMC'));
    expect(header).toMatch(/\| Frame change \| Tally correct \| Worlds \|/);
    // the section's heading is in the contents, like every section's
    expect(markdown.indexOf('Tally (test fixture)')).toBeLessThan(section);
    // a run that leaves the experiment out omits its section
    const left = renderMarkdown(
      buildReportDocument({ ...input, experiments: { [TALLY]: false } }, [
        ...BUILT_IN_SECTIONS,
        tallySection,
      ]),
    );
    expect(left).not.toContain('Tally (test fixture)');
  });
});
