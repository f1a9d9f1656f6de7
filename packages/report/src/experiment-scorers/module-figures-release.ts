import type { RunChartData } from '@chi/analysis';
import { moduleFigure, renderFigureSvg } from '@chi/figures';
import type { ReportBlock } from '../document/report-block';
import { figureFiles } from '../release/figure-files';
import type { ModuleRelease } from './module-release';

/** The figures of the module experiments: their files and the report sections that show them. */
export interface ModuleFigureRelease {
  /** `figures/experiment-<id>.svg` and `chart-data/experiment-<id>.json|.csv`, by path. */
  readonly files: ReadonlyMap<string, string>;
  /** The module sections, each with its figure after its table. */
  readonly reportBlocks: readonly ReportBlock[];
}

/**
 * Draws one figure per scored module experiment ({@link moduleFigure}) and places it in that
 * experiment's report section, after its table; its plotted rows are published beside it like
 * every figure's (`chart-data/experiment-<id>.json` and `.csv`). The report renumbers figures in
 * reading order. A run without module experiments gets nothing.
 */
export async function buildModuleFigures(
  data: RunChartData,
  modules: ModuleRelease,
): Promise<ModuleFigureRelease> {
  const files = new Map<string, string>();
  const reportBlocks: ReportBlock[] = [];
  for (const section of modules.sections) {
    const figure = moduleFigure(data, section.scorer, section.estimates);
    if (figure === null) {
      reportBlocks.push(...section.blocks);
      continue;
    }
    const svg = await renderFigureSvg(figure);
    for (const [path, text] of figureFiles(figure, svg)) files.set(path, text);
    // numbered 0 here; the report numbers every figure in reading order
    reportBlocks.push(...section.blocks, { kind: 'figure', figure, svg, number: 0 });
  }
  return { files, reportBlocks };
}
