import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sampleChartData } from '@chi/analysis/test';
import { BUILT_IN_EXPERIMENTS, PROTOCOL_EXPERIMENTS } from '@chi/experiments';
import { BUILT_IN_FIGURES } from '@chi/figures';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The core of the analysis, the figures and the report iterates registries keyed by experiment
// ID and names no experiment (issue 34). Each experiment's part registers under its ID: its
// analysis in @chi/analysis (`<id>-analysis.ts`, its file fields in CHART_FILE_PARTS), its
// figures in @chi/figures (BUILT_IN_FIGURES) and its report section in @chi/report
// (BUILT_IN_SECTIONS, with its columns of the summary's headline table). These files are the
// core: a name of an experiment here is a defect.

const PACKAGES = join(import.meta.dirname, '..', '..');

/** The files that iterate the registries: they may name no experiment. */
const CORE_FILES = [
  'analysis/src/analysis-context.ts',
  'analysis/src/comparison-analysis.ts',
  'report/src/scoring/analyze-run.ts',
  'figures/src/figures.ts',
  'report/src/document/report-document.ts',
  'report/src/document/report-summary.ts',
  'report/src/release/release-files.ts',
  'report/src/release/write-release.ts',
  'report/src/verify/verify-release.ts',
  'report/src/scoring/score-run.ts',
  'report/src/inspect/headline-metrics.ts',
  'pilot/src/cli/run-summary.ts',
];

/** Every experiment ID, and every block kind an experiment's scorer scores (`controls`). */
const EXPERIMENT_IDS = new Set(
  [...BUILT_IN_EXPERIMENTS, ...PROTOCOL_EXPERIMENTS].flatMap((builtIn) => [
    builtIn.experiment.id,
    ...(builtIn.scorer.blocks?.blockExperiments ?? []),
  ]),
);

/** The figure IDs each experiment registers (drawn from the sample chart data). */
const EXPERIMENT_FIGURE_IDS = new Set(
  BUILT_IN_FIGURES.flatMap((entry) =>
    entry.figures(sampleChartData()).flatMap((figure) => (figure === null ? [] : [figure.id])),
  ),
);

/**
 * The experiments' fields of the chart data, read as properties. `memory` is left out: the run's
 * systems have a `memory` field too (who holds the memory), and the in-memory chart data has no
 * such field any more, so a read of the old one does not compile.
 */
const EXPERIMENT_FIELDS = new Set([
  'eimc',
  'taxonomy',
  'history',
  'historyDistances',
  'historyDynamics',
  'historyVectors',
  'behavior',
]);

/** Where a source names an experiment: its ID or figure ID as a string, or a field of its part. */
function namings(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const at = (node: ts.Node) =>
    source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const visit = (node: ts.Node): void => {
    if (
      (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) &&
      (EXPERIMENT_IDS.has(node.text) || EXPERIMENT_FIGURE_IDS.has(node.text))
    )
      found.push(`${fileName}:${at(node)} '${node.text}'`);
    if (ts.isPropertyAccessExpression(node) && EXPERIMENT_FIELDS.has(node.name.text))
      found.push(`${fileName}:${at(node)} .${node.name.text}`);
    // an experiment's parameters or inclusion by name: `manifest.experiments.memory`
    if (
      ts.isPropertyAccessExpression(node) &&
      EXPERIMENT_IDS.has(node.name.text) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === 'experiments'
    )
      found.push(`${fileName}:${at(node)} experiments.${node.name.text}`);
    if (ts.isIdentifier(node) && node.text === 'chartPartOf')
      found.push(`${fileName}:${at(node)} chartPartOf`);
    node.forEachChild(visit);
  };
  visit(source);
  return found;
}

describe('the core names no experiment', () => {
  it('knows what to look for: the experiments, their block kinds and their figures', () => {
    for (const id of ['memory', 'controls', 'history', 'behavior', 'goal-persistence'])
      expect(EXPERIMENT_IDS).toContain(id);
    for (const id of ['memory-capacity', 'history-accuracy', 'behavior'])
      expect(EXPERIMENT_FIGURE_IDS).toContain(id);
    expect(EXPERIMENT_FIGURE_IDS).not.toContain('resources');
  });

  it('finds a naming where there is one, and not in comments or prose', () => {
    const named = [
      "const points = chartPartOf(data, 'memory').memory;",
      "figureBlocks(input, 'history-accuracy');",
      'const rows = data.historyDistances;',
      "if (request.experiment === 'controls') load = request.load;",
      'const loads = manifest.experiments.memory?.loads ?? [];',
    ].join('\n');
    expect(namings('named.ts', named)).toHaveLength(6);
    const clean = [
      '// the memory experiment: history and behavior alike',
      "const text = 'the memory section of every run';",
      "const held = system.memory === 'system';",
    ].join('\n');
    expect(namings('clean.ts', clean)).toEqual([]);
  });

  it.each(CORE_FILES)('%s names no experiment', (file) => {
    const text = readFileSync(join(PACKAGES, file), 'utf8');
    // the file is there and is code, so the scan cannot pass on nothing
    expect(text).toMatch(/export (function|class|interface)/);
    expect(namings(file, text)).toEqual([]);
  });
});
