import type { RunChartData } from '@chi/analysis';
import { sampleChartData } from '@chi/analysis/test';
import { describe, expect, it } from 'vitest';
import { returnedIdentifiers } from '../scoring/analyze-run';
import { renderMarkdown } from './render-report';
import { buildReportDocument } from './report-document';
import { SYSTEM_CAVEATS, systemsBlocks } from './systems-section';

/** The sample data with one live system and the manifest facts of a current pilot manifest. */
function liveChartData(): RunChartData {
  const data = sampleChartData();
  return {
    ...data,
    run: {
      ...data.run,
      evidenceClass: 'live_model',
      systems: [
        {
          id: 'kimi-k3',
          model: 'moonshotai/kimi-k3',
          kind: 'openrouter',
          evidenceClass: 'live_model',
          uncappedNotebook: false,
          providers: ['moonshotai/mxfp4'],
          quantization: ['moonshotai/mxfp4: fp4'],
          reasoningEffort: 'low',
          maxOutputTokens: 4096,
          safetyPrice: { inputUsdPerToken: 5e-6, outputUsdPerToken: 25e-6, requestUsd: 0 },
          returned: [
            { model: null, provider: null, responses: 1 },
            { model: 'moonshotai/kimi-k3-20260815', provider: 'moonshotai/mxfp4', responses: 3 },
          ],
        },
      ],
      transport: {
        ceilingUsd: 40,
        deadlineMs: 180_000,
        maxRetries: 2,
        retryAfterCapMs: 60_000,
        reservationMargin: 0.25,
      },
      calibrationId: null,
      policies: { memory: 'Notebook policy.', reset: 'Fresh requests.', scheduler: 'Invocations.' },
      featureSchemas: [
        {
          id: 'history-profile',
          version: 1,
          features: ['accuracy', 'invalidRate'],
          coding: 'Rates.',
        },
      ],
    },
  };
}

const table = (blocks: ReturnType<typeof systemsBlocks>, caption: string) => {
  const found = blocks.find((b) => b.kind === 'table' && b.caption.startsWith(caption));
  if (found?.kind !== 'table') throw new Error(`no table ${caption}`);
  return found;
};

describe('the systems part of the report', () => {
  it('shows the transport settings actually used, one row per system', () => {
    const transport = table(systemsBlocks(liveChartData()), 'Transport settings actually used');
    expect(transport.caption).toContain('plus a 25% margin');
    expect(transport.rows).toEqual([
      [
        'kimi-k3',
        'moonshotai/mxfp4',
        'moonshotai/mxfp4: fp4',
        'low',
        '4096',
        '180 s per request',
        'at most 2 retries, only after an explicit HTTP 429/5xx or a connection failure before any response, each wait logged (Retry-After honoured up to 60 s); timeouts, invalid and truncated answers are never retried',
        '$40.0000',
        '$5.0000 / $25.0000 per million input / output tokens; $0.0000 per request',
      ],
    ]);
  });

  it('states the quantization: the catalog per endpoint, none for scripted systems, unknown for an endpoint', () => {
    const data = liveChartData();
    const kimi = data.run.systems[0] as (typeof data.run.systems)[number];
    const { quantization: _unused, ...bare } = kimi;
    const systems = [
      kimi,
      { ...bare, id: 's', kind: 'scripted' },
      { ...bare, id: 'e', kind: 'openai-compatible' },
      { ...bare, id: 'o' },
    ];
    const rows = table(
      systemsBlocks({ ...data, run: { ...data.run, systems } }),
      'Transport settings actually used',
    ).rows.map((row) => row[2]);
    expect(rows).toEqual([
      'moonshotai/mxfp4: fp4',
      'none (scripted system, no weights)',
      'unknown (the endpoint reports none)',
      'unknown (no catalog entry recorded)',
    ]);
  });

  it('puts the returned model identifiers next to the requested ones', () => {
    const identifiers = table(systemsBlocks(liveChartData()), 'Model identifiers');
    expect(identifiers.rows).toEqual([
      [
        'kimi-k3',
        'moonshotai/kimi-k3',
        '(none returned) via (none returned) (1 response); moonshotai/kimi-k3-20260815 via moonshotai/mxfp4 (3 responses)',
      ],
    ]);
  });

  it("quotes the protocol's three caveats right after the systems tables, and the manifest's calibration, policies and feature schemas", () => {
    const markdown = renderMarkdown(
      buildReportDocument({ data: liveChartData(), figures: [], caseExamples: [] }),
    );
    const systemsAt = markdown.indexOf('Evaluated systems.');
    const statisticsAt = markdown.indexOf('Statistics: the resampling unit is the world.');
    expect(systemsAt).toBeGreaterThan(0);
    for (const quote of [
      '"Public aliases may change internally; these identifiers do not verify identical weights."',
      '"Nominal reasoning effort is low, to bound a pilot\'s cost; equal labels are not equal internal compute."',
      '"There is no claim that random seeds guarantee identical proprietary weights or fully deterministic identical initial instances."',
    ]) {
      expect(SYSTEM_CAVEATS.some((caveat) => caveat.includes(quote))).toBe(true);
      const at = markdown.indexOf(quote);
      expect(at, quote).toBeGreaterThan(systemsAt);
      expect(at, quote).toBeLessThan(statisticsAt);
    }
    expect(markdown).toContain('Calibration ID: null (no human calibration; CHI is null).');
    expect(markdown).toContain('Reset policy: Fresh requests.');
    expect(markdown).toContain('Scheduler policy: Invocations.');
    expect(markdown).toContain(
      'Feature schemas: history-profile v1 (accuracy, invalidRate; Rates.)',
    );
  });
});

describe('returnedIdentifiers', () => {
  it('counts the returned model and provider of every resolved attempt of one system', () => {
    const attempt = (
      systemId: string,
      phase: 'before_send' | 'after_response',
      returnedModel: string | null,
      returnedProvider: string | null,
    ) =>
      ({
        systemId,
        phase,
        result: phase === 'before_send' ? null : { returnedModel, returnedProvider },
      }) as unknown as Parameters<typeof returnedIdentifiers>[0]['attempts'][number];
    const attempts = [
      attempt('kimi', 'before_send', null, null),
      attempt('kimi', 'after_response', 'm-2', 'p'),
      attempt('kimi', 'after_response', 'm-1', 'p'),
      attempt('kimi', 'after_response', 'm-2', 'p'),
      attempt('other', 'after_response', 'x', 'y'),
      attempt('kimi', 'after_response', null, null),
    ];
    expect(returnedIdentifiers({ attempts }, 'kimi')).toEqual([
      { model: 'm-1', provider: 'p', responses: 1 },
      { model: 'm-2', provider: 'p', responses: 2 },
      { model: null, provider: null, responses: 1 },
    ]);
  });
});
