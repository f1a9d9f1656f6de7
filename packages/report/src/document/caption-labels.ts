import type { RunFacts } from '@chi/analysis';
import { runEvidenceBanner } from '@chi/analysis';
import type { ReportBlock } from './report-block';

/**
 * The short form of a run's evidence banner, for captions: the banner up to its dash, e.g.
 * `Scripted baseline` or `Includes scripted baselines (systems marked †)`; null for an all-live run.
 */
export function shortEvidenceLabel(run: RunFacts): string | null {
  const banner = runEvidenceBanner(run);
  if (banner === null) return null;
  return banner.split(' — ')[0] ?? banner;
}

function labelled(caption: string, banner: string, label: string): string {
  // a figure's own caption opens with the whole banner (its standalone files keep it)
  const rest = caption.startsWith(`${banner}.`)
    ? caption.slice(banner.length + 1).trimStart()
    : caption;
  return `[${label}] ${rest}`;
}

/**
 * Puts the banner's short label on every figure and table caption of a run that is not all live,
 * so no scripted figure or table reads as a measurement when seen alone, while the whole banner
 * is shown once, at the top of the report. Tables inside collapsed details are labelled too.
 */
export function labelCaptions(blocks: readonly ReportBlock[], run: RunFacts): ReportBlock[] {
  const banner = runEvidenceBanner(run);
  const label = shortEvidenceLabel(run);
  if (banner === null || label === null) return [...blocks];
  const walk = (block: ReportBlock): ReportBlock => {
    switch (block.kind) {
      case 'table':
        return { ...block, caption: labelled(block.caption, banner, label) };
      case 'figure':
        return {
          ...block,
          figure: { ...block.figure, caption: labelled(block.figure.caption, banner, label) },
        };
      case 'details':
        return { ...block, blocks: block.blocks.map(walk) };
      default:
        return block;
    }
  };
  return blocks.map(walk);
}
