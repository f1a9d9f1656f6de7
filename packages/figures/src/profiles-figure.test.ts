import type { ProfilesData } from '@chi/analysis/internal';
import { describe, expect, it } from 'vitest';
import { profilesFigure } from './profiles-figure';
import { renderFigureSvg } from './render-svg';

// Only the fields profilesFigure reads: a perfect system and an abstainer that scores zero.
const data = {
  calibrationLabel: null,
  comparison: null,
  reason: 'no human calibration was frozen in the manifest',
  similarity: [],
  capacity: ['perfect', 'abstainer'].flatMap((systemId) =>
    ['behavior.R', 'behavior.C'].map((test) => ({
      systemId,
      test,
      estimate: systemId === 'perfect' ? 1 : 0,
      interval: { lower: systemId === 'perfect' ? 1 : 0, upper: systemId === 'perfect' ? 1 : 0 },
    })),
  ),
} as unknown as ProfilesData;

const labels = new Map([
  ['perfect', 'perfect'],
  ['abstainer', 'abstainer'],
]);
const colors = { domain: ['perfect', 'abstainer'], range: ['#0072b2', '#009e73'] };

describe('the profiles figure (figure 9)', () => {
  it("colours each system with the release's palette and draws the abstainer's zeros", async () => {
    const svg = await renderFigureSvg(profilesFigure(data, labels, colors));
    // a visible mark (non-zero height) in the system's colour: a zero-height bar draws nothing
    const visible = (color: string) =>
      [...svg.matchAll(/<path [^>]*d="M[^"]*v([\d.]+)[^"]*"[^>]*fill="([^"]+)"/g)].filter(
        (m) => m[2] === color && Number(m[1]) > 0,
      ).length;
    expect(visible('#0072b2')).toBeGreaterThan(0);
    expect(visible('#009e73')).toBe(2);
    expect(svg).not.toContain('#1f4e79');
  });
});
