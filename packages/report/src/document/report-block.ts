import type { FigureDefinition } from '@chi/figures';

/**
 * What a figure block shows of its figure: its id, title, caption and release path. A vega
 * figure (`FigureDefinition`) is one; the divergence release's hand-drawn SVGs are others.
 */
export type ReportFigure = Pick<FigureDefinition, 'id' | 'title' | 'caption' | 'svgPath'>;

/** A block of the report, rendered to Markdown and to HTML by the same walk. */
export type ReportBlock =
  | {
      readonly kind: 'heading';
      readonly level: 1 | 2 | 3;
      readonly text: string;
      readonly id: string;
    }
  | { readonly kind: 'banner'; readonly text: string }
  | { readonly kind: 'paragraph'; readonly text: string }
  | { readonly kind: 'list'; readonly items: readonly string[] }
  | {
      readonly kind: 'table';
      /** The HTML id of the table's wrapper (the summary's headline table). */
      readonly id?: string;
      readonly caption: string;
      readonly columns: readonly string[];
      readonly rows: readonly (readonly string[])[];
    }
  | {
      readonly kind: 'figure';
      readonly figure: ReportFigure;
      readonly svg: string;
      readonly number: number;
    }
  | { readonly kind: 'code'; readonly label: string; readonly text: string }
  | {
      readonly kind: 'links';
      /**
       * `href` is `#id` (a heading of this document) or a relative file path; `markdownHref`
       * replaces it in the Markdown rendering (e.g. `report-cases.md` for `report-cases.html`).
       */
      readonly items: readonly {
        readonly text: string;
        readonly href: string;
        readonly markdownHref?: string;
      }[];
    }
  | { readonly kind: 'details'; readonly summary: string; readonly blocks: readonly ReportBlock[] };
