import type { ReportBlock } from './report-block';

/**
 * The table of contents of a report: a heading and one link per level-2 heading of `blocks`, in
 * order. Built from the blocks themselves, so a section added anywhere appears in it.
 */
export function tableOfContents(blocks: readonly ReportBlock[]): ReportBlock[] {
  const items = blocks.flatMap((block) =>
    block.kind === 'heading' && block.level === 2
      ? [{ text: block.text, href: `#${block.id}` }]
      : [],
  );
  return [
    { kind: 'heading', level: 2, text: 'Contents', id: 'contents' },
    { kind: 'links', items },
  ];
}
