import type { RunChartData } from '@chi/analysis';
import type { ReportSystem } from '@chi/analysis/internal';
import { systemLabel } from '@chi/analysis/internal';
import { formatNumber, formatUsd } from './format-number';
import type { ReportBlock } from './report-block';
import { evaluatedSystems, referenceSystems } from './report-summary';

/**
 * The protocol's caveats about what a system's identity and settings do not guarantee, quoted
 * from the pilot protocol (seeds/003) and shown beside the systems table.
 */
export const SYSTEM_CAVEATS: readonly string[] = [
  'Model identifiers do not verify identical weights: "Public aliases may change internally; these identifiers do not verify identical weights."',
  'Equal reasoning-effort labels are not equal internal compute: "Nominal reasoning effort is low, to bound a pilot\'s cost; equal labels are not equal internal compute."',
  'Seeds do not guarantee identical proprietary instances: "There is no claim that random seeds guarantee identical proprietary weights or fully deterministic identical initial instances."',
];

const perMillion = (usdPerToken: number) => formatUsd(usdPerToken * 1_000_000);

function safetyPrice(system: ReportSystem): string {
  if (system.safetyPrice === null) return '— (none declared)';
  const p = system.safetyPrice;
  return `${perMillion(p.inputUsdPerToken)} / ${perMillion(p.outputUsdPerToken)} per million input / output tokens; ${formatUsd(p.requestUsd)} per request`;
}

function returned(system: ReportSystem): string {
  if (system.returned.length === 0) return '— (no response recorded)';
  return system.returned
    .map(
      (r) =>
        `${r.model ?? '(none returned)'} via ${r.provider ?? '(none returned)'} (${r.responses} response${r.responses === 1 ? '' : 's'})`,
    )
    .join('; ');
}

/**
 * What the report states about a system's quantization: the catalog's report per allowlisted
 * endpoint; for a scripted system there are no weights; an OpenAI-compatible endpoint reports none.
 */
export function quantizationText(system: ReportSystem): string {
  if (system.quantization !== undefined && system.quantization.length > 0)
    return system.quantization.join('; ');
  if (system.kind === 'scripted') return 'none (scripted system, no weights)';
  if (system.kind === 'openrouter') return 'unknown (no catalog entry recorded)';
  return 'unknown (the endpoint reports none)';
}

function systemsTable(
  data: RunChartData,
  systems: readonly ReportSystem[],
  caption: string,
): ReportBlock {
  return {
    kind: 'table',
    caption,
    columns: ['System', 'Model', 'Kind', 'Evidence class', 'Notebook'],
    rows: systems.map((s) => [
      systemLabel(data.run, s.id),
      s.model,
      s.kind,
      s.evidenceClass,
      s.uncappedNotebook
        ? 'uncapped (reference condition)'
        : `capped at ${data.run.notebookCapBytes} bytes`,
    ]),
  };
}

/**
 * The systems part of the report: the evaluated systems and, apart, the reference conditions, the transport settings actually used, the
 * model identifiers requested and returned, the protocol's caveats about them, and what the
 * manifest records about calibration, policies and feature schemas.
 */
export function systemsBlocks(data: RunChartData): ReportBlock[] {
  const t = data.run.transport;
  const retryRule = `at most ${t.maxRetries} retries, only after an explicit HTTP 429/5xx or a connection failure before any response, each wait logged (Retry-After honoured up to ${formatNumber(t.retryAfterCapMs / 1000, 0)} s); timeouts, invalid and truncated answers are never retried`;
  return [
    systemsTable(data, evaluatedSystems(data), 'Evaluated systems.'),
    ...(referenceSystems(data).length === 0
      ? []
      : [
          systemsTable(
            data,
            referenceSystems(data),
            'Reference conditions: declared scripted systems with an uncapped notebook, shown for comparison; not evaluated systems.',
          ),
        ]),
    {
      kind: 'table',
      caption: `Transport settings actually used, as frozen in the manifest. Ceiling, deadline and retry rule hold for every request of the run; a reservation takes the larger of the catalog and the safety price, plus a ${formatNumber(t.reservationMargin * 100, 0)}% margin.`,
      columns: [
        'System',
        'Provider allowlist',
        'Quantization (catalog)',
        'Reasoning effort',
        'Output cap (tokens)',
        'Deadline',
        'Retry rule',
        'Ceiling (USD, run)',
        'Safety prices (USD)',
      ],
      rows: data.run.systems.map((s) => [
        systemLabel(data.run, s.id),
        s.providers.length === 0 ? '— (none: not routed)' : s.providers.join(', '),
        quantizationText(s),
        s.reasoningEffort ?? '— (not sent)',
        String(s.maxOutputTokens),
        `${formatNumber(t.deadlineMs / 1000, 0)} s per request`,
        retryRule,
        formatUsd(t.ceilingUsd),
        safetyPrice(s),
      ]),
    },
    {
      kind: 'table',
      caption:
        'Model identifiers: requested (manifest) and returned by the endpoint (attempt records, every resolved attempt).',
      columns: ['System', 'Requested model', 'Returned model via provider'],
      rows: data.run.systems.map((s) => [systemLabel(data.run, s.id), s.model, returned(s)]),
    },
    { kind: 'list', items: [...SYSTEM_CAVEATS] },
    {
      kind: 'list',
      items: [
        `Calibration ID: ${data.run.calibrationId ?? 'null (no human calibration; CHI is null)'}.`,
        ...(data.run.policies === null
          ? ['Memory, reset and scheduler policies: not recorded in this manifest.']
          : [
              `Memory policy: ${data.run.policies.memory}`,
              `Reset policy: ${data.run.policies.reset}`,
              `Scheduler policy: ${data.run.policies.scheduler}`,
            ]),
        data.run.featureSchemas.length === 0
          ? 'Feature schemas: not recorded in this manifest.'
          : `Feature schemas: ${data.run.featureSchemas
              .map((f) => `${f.id} v${f.version} (${f.features.join(', ')}; ${f.coding})`)
              .join('; ')}`,
      ],
    },
  ];
}
