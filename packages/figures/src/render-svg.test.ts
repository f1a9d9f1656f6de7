import { describe, expect, it } from 'vitest';
import { type FigureSource, renderFigureSvg } from './render-svg';

function figure(id: string, extra: Partial<FigureSource> = {}): FigureSource {
  return {
    id,
    title: 'Q_M by load <scripted baseline>',
    description: 'Q_M (unitless, 0 to 1) by load N; 3 complete worlds per load.',
    spec: {
      title: { text: 'Q_M by load', subtitle: 'scripted baseline' },
      width: 200,
      height: 120,
      data: {
        values: [
          { n: 32, q: 0.9 },
          { n: 64, q: 0.6 },
        ],
      },
      // a clipped layer makes vega allocate a clip-path id, the id that used to depend on history
      mark: { type: 'line', clip: true, point: true },
      encoding: {
        x: { field: 'n', type: 'quantitative', title: 'Load N (target keys)' },
        y: { field: 'q', type: 'quantitative', title: 'Q_M (0-1)', scale: { domain: [0, 1] } },
      },
    },
    ...extra,
  };
}

describe('renderFigureSvg', () => {
  it('renders an accessible SVG with a title, a description and axis labels', async () => {
    const svg = await renderFigureSvg(figure('capacity'));
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).toContain('role="graphics-document document"');
    expect(svg).toContain('aria-labelledby="capacity-title" aria-describedby="capacity-desc"');
    expect(svg).toContain(
      '<title id="capacity-title">Q_M by load &lt;scripted baseline&gt;</title>',
    );
    expect(svg).toContain(
      '<desc id="capacity-desc">Q_M (unitless, 0 to 1) by load N; 3 complete worlds per load.</desc>',
    );
    expect(svg).toContain('Load N (target keys)');
    expect(svg).toContain('scripted baseline');
    expect(svg.endsWith('</svg>\n')).toBe(true);
  });

  it('gives identical bytes for identical input, whatever was rendered before', async () => {
    const first = await renderFigureSvg(figure('capacity'));
    await renderFigureSvg(figure('other'));
    await renderFigureSvg(figure('other'));
    const again = await renderFigureSvg(figure('capacity'));
    expect(again).toBe(first);
  });

  it('prefixes generated clip ids with the figure id so figures can share a page', async () => {
    const svg = await renderFigureSvg(figure('capacity'));
    const ids = [...svg.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]);
    expect(ids.length).toBeGreaterThan(3);
    for (const id of ids) expect(id?.startsWith('capacity-')).toBe(true);
    for (const m of svg.matchAll(/url\(#([^)]+)\)/g)) expect(ids).toContain(m[1]);
    expect(svg).toContain('clip-path="url(#capacity-clip1)"');
    expect(svg).toContain('<clipPath id="capacity-clip2">');
  });

  it('refuses external data and malformed ids', async () => {
    await expect(renderFigureSvg(figure('Bad Id'))).rejects.toThrow(/figure\.id/);
    const external = figure('x', {
      spec: { data: { url: 'https://example.com/d.json' }, mark: 'point' },
    });
    await expect(renderFigureSvg(external)).rejects.toThrow(/inline data only/);
  });
});
