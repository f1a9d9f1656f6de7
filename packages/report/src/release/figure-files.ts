import type { FigureDefinition } from '@chi/figures';
import { canonicalJson } from '../canonical-json';
import { toCsv } from './csv';

/**
 * The release files of one rendered figure: its SVG, and the rows it plots as
 * `chart-data/<id>.json` (with its title and caption) and `chart-data/<id>.csv`. One writer for the
 * pilot's figures and the module experiments' figures, so both carry the same three files.
 */
export function figureFiles(definition: FigureDefinition, svg: string): [string, string][] {
  return [
    [definition.svgPath, svg],
    [
      `chart-data/${definition.id}.json`,
      canonicalJson({
        figure: definition.id,
        title: definition.title,
        caption: definition.caption,
        columns: definition.columns,
        rows: definition.rows,
      }),
    ],
    [`chart-data/${definition.id}.csv`, toCsv(definition.columns, definition.rows)],
  ];
}
