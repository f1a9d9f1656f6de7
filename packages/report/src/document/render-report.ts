import type { ReportBlock } from './report-block';

/** Splits text on backticks: odd segments are inline code. */
function segments(text: string): { code: boolean; text: string }[] {
  return text.split('`').map((part, index) => ({ code: index % 2 === 1, text: part }));
}

function escapeMarkdownText(text: string): string {
  return text.replace(/[\\*_[\]<>|#]/g, (c) => `\\${c}`).replace(/\n/g, ' ');
}

function markdownInline(text: string): string {
  return segments(text)
    .map((s) => (s.code ? `\`${s.text}\`` : escapeMarkdownText(s.text)))
    .join('');
}

function fence(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(longest + 1);
}

function markdownBlock(block: ReportBlock): string {
  switch (block.kind) {
    case 'heading':
      // an explicit anchor, so the table of contents links work whatever the heading text
      return `<a id="${escapeHtml(block.id)}"></a>\n\n${'#'.repeat(block.level)} ${markdownInline(block.text)}`;
    case 'banner':
      return `> **${markdownInline(block.text)}**`;
    case 'paragraph':
      return markdownInline(block.text);
    case 'list':
      return block.items.map((item) => `- ${markdownInline(item)}`).join('\n');
    case 'table': {
      if (block.rows.length === 0) return `*${markdownInline(block.caption)}* (none)`;
      const row = (cells: readonly string[]) => `| ${cells.map(markdownInline).join(' | ')} |`;
      return [
        `*${markdownInline(block.caption)}*`,
        '',
        row(block.columns),
        `|${block.columns.map(() => ' --- |').join('')}`,
        ...block.rows.map(row),
      ].join('\n');
    }
    case 'figure':
      return `![${markdownInline(block.figure.title)}](${block.figure.svgPath})\n\n*Figure ${block.number}. ${markdownInline(block.figure.caption)}*`;
    case 'code': {
      const marker = fence(block.text);
      return `**${markdownInline(block.label)}**\n\n${marker}text\n${block.text}\n${marker}`;
    }
    case 'links':
      return block.items
        .map((item) => `- [${markdownInline(item.text)}](${item.markdownHref ?? item.href})`)
        .join('\n');
    case 'details':
      return [
        `<details>\n<summary>${escapeHtml(block.summary)}</summary>`,
        ...block.blocks.map(markdownBlock),
        '</details>',
      ].join('\n\n');
  }
}

/**
 * Renders report blocks as GitHub-flavoured Markdown. Figures are referenced as relative paths
 * (`figures/<id>.svg`) so the Markdown reads correctly inside the release folder.
 */
export function renderMarkdown(blocks: readonly ReportBlock[]): string {
  return `${blocks.map(markdownBlock).join('\n\n')}\n`;
}

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

function htmlInline(text: string): string {
  return segments(text)
    .map((s) => (s.code ? `<code>${escapeHtml(s.text)}</code>` : escapeHtml(s.text)))
    .join('');
}

function htmlBlock(block: ReportBlock): string {
  switch (block.kind) {
    case 'heading':
      return `<h${block.level} id="${escapeHtml(block.id)}">${htmlInline(block.text)}</h${block.level}>`;
    case 'banner':
      return `<p class="banner" role="note"><strong>${htmlInline(block.text)}</strong></p>`;
    case 'paragraph':
      return `<p>${htmlInline(block.text)}</p>`;
    case 'list':
      return `<ul>\n${block.items.map((item) => `<li>${htmlInline(item)}</li>`).join('\n')}\n</ul>`;
    case 'table': {
      const head = `<thead><tr>${block.columns.map((c) => `<th scope="col">${htmlInline(c)}</th>`).join('')}</tr></thead>`;
      const body =
        block.rows.length === 0
          ? `<tbody><tr><td colspan="${block.columns.length}">(none)</td></tr></tbody>`
          : `<tbody>\n${block.rows.map((r) => `<tr>${r.map((c) => `<td>${htmlInline(c)}</td>`).join('')}</tr>`).join('\n')}\n</tbody>`;
      const id = block.id === undefined ? '' : ` id="${escapeHtml(block.id)}"`;
      return `<div class="table-wrap"${id}><table>\n<caption>${htmlInline(block.caption)}</caption>\n${head}\n${body}\n</table></div>`;
    }
    case 'figure':
      return `<figure id="figure-${escapeHtml(block.figure.id)}" class="chart">\n${block.svg.trimEnd()}\n<figcaption>Figure ${block.number}. ${htmlInline(block.figure.caption)}</figcaption>\n</figure>`;
    case 'code':
      return `<p class="code-label"><strong>${htmlInline(block.label)}</strong></p>\n<pre><code>${escapeHtml(block.text)}</code></pre>`;
    case 'links':
      return `<ul class="links">\n${block.items.map((item) => `<li><a href="${escapeHtml(item.href)}">${htmlInline(item.text)}</a></li>`).join('\n')}\n</ul>`;
    case 'details':
      return `<details>\n<summary>${htmlInline(block.summary)}</summary>\n${block.blocks.map(htmlBlock).join('\n')}\n</details>`;
  }
}

const STYLE = `body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;line-height:1.45;margin:0;color:#111;background:#fff}
main{max-width:1000px;box-sizing:content-box;margin:0 auto;padding:1rem 1.5rem 3rem}
.banner{background:#fff3cd;border:2px solid #b58100;padding:.6rem .9rem;font-size:1.05rem}
.table-wrap{overflow-x:auto;margin:1rem 0}
table{border-collapse:collapse;font-size:.85rem}
caption{text-align:left;font-style:italic;padding:.3rem 0}
th,td{border:1px solid #ccc;padding:.25rem .45rem;vertical-align:top;text-align:left}
th{background:#f3f3f3}
#headline-table table{font-size:.8rem;line-height:1.3}
#headline-table th,#headline-table td{padding:.2rem .35rem}
figure.chart{margin:1.5rem 0}
figure.chart svg{display:block;max-width:none;height:auto}
figcaption{font-size:.9rem;max-width:60rem}
pre{background:#f6f6f6;padding:.6rem;overflow-x:auto;font-size:.8rem}
details{margin:.8rem 0}
summary{cursor:pointer;font-weight:600}
@media print{.banner{border-width:3px}details{display:block}}`;

/**
 * Renders report blocks as one self-contained HTML page: figures are inline SVG, styles are
 * inline, there are no scripts, and a Content-Security-Policy forbids every external load.
 */
export function renderHtml(blocks: readonly ReportBlock[], title: string): string {
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    '<main>',
    ...blocks.map(htmlBlock),
    '</main>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
