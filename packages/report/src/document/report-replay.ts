import { chartPartOf, type RunChartData } from '@chi/analysis';
import type { MemoryPoint, WorldSpread } from '@chi/analysis/internal';
import { systemLabel } from '@chi/analysis/internal';
import { formatEstimate, formatNumber } from './format-number';
import type { ReportBlock } from './report-block';

function spreadText(value: WorldSpread | null, unit: string): string {
  if (value === null) return 'not counted';
  const range =
    value.min === value.max ? '' : ` (${formatNumber(value.min, 0)}–${formatNumber(value.max, 0)})`;
  return `${formatNumber(value.mean, 0)} ${unit}${range}`;
}

function qualityText(point: MemoryPoint | undefined): string {
  return point === undefined ? 'n/a' : formatEstimate(point.qualityScore);
}

/**
 * The transcript-replay baseline's section: Q_M with the stored transcript beside Q_M with the
 * notebook, and what each stores and replays. Empty when the run has no replay condition.
 */
export function transcriptReplayBlocks(data: RunChartData): ReportBlock[] {
  const rows = data.transcriptReplay ?? [];
  if (rows.length === 0) return [];
  const point = (systemId: string, load: number, condition: 'notebook' | 'replay') =>
    chartPartOf(data, 'memory').memory.find(
      (p) => p.systemId === systemId && p.load === load && p.condition === condition,
    );
  return [
    { kind: 'heading', level: 3, text: 'Transcript-replay baseline', id: 'transcript-replay' },
    {
      kind: 'paragraph',
      text: `"Replaying an externally stored transcript is a legitimate baseline whose storage and replay costs must be counted." In the replay condition each probe request receives the stored transcript of the system's encode session (the encode messages and its reply, uncapped) in place of its notebook, on the same blind questions. Replay is not capped at the ${data.run.notebookCapBytes}-byte notebook cap, so it is a baseline beside EIMC, never EIMC. Bytes are UTF-8; tokens are the endpoint's input-token counts, "not counted" where a system reports none (scripted systems): read the bytes there. Per world: mean over the row's worlds (smallest–largest).`,
    },
    {
      kind: 'table',
      caption:
        'Q_M of the notebook and of transcript replay at each load, with what each condition stores and sends per world. Replay probe input includes the questions and instructions as well as the transcript.',
      columns: [
        'System',
        'N',
        'Worlds',
        'Q_M notebook [95% CI]',
        'Q_M replay [95% CI]',
        'Stored: notebook',
        'Stored: transcript',
        'Probe input: notebook',
        'Probe input: replay',
        'Input tokens: notebook',
        'Input tokens: replay',
      ],
      rows: rows.map((row) => [
        systemLabel(data.run, row.systemId),
        String(row.load),
        String(row.worldSeeds.length),
        qualityText(point(row.systemId, row.load, 'notebook')),
        qualityText(point(row.systemId, row.load, 'replay')),
        spreadText(row.notebookStoredBytes, 'B'),
        spreadText(row.transcriptStoredBytes, 'B'),
        spreadText(row.notebookProbeInputBytes, 'B'),
        spreadText(row.replayProbeInputBytes, 'B'),
        spreadText(row.notebookProbeInputTokens, 'tokens'),
        spreadText(row.replayProbeInputTokens, 'tokens'),
      ]),
    },
  ];
}
