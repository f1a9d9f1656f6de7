import type { ModuleScores, RunScores } from '@chi/analysis';
import { analyzeModule, type ModuleEstimate } from '@chi/analysis';
import type { WorldScorer } from '@chi/experiment';
import type { RunManifest } from '@chi/spec';
import { canonicalJson } from '../canonical-json';
import { formatNumber } from '../document/format-number';
import type { ReportBlock } from '../document/report-block';
import { type CsvCell, toCsv } from '../release/csv';
import type { RunRecords } from '../run-folder/run-folder';

/** One scored module experiment of a run: its scorer, estimates and report section. */
export interface ModuleSection {
  readonly scorer: WorldScorer;
  readonly estimates: readonly ModuleEstimate[];
  /** Its report section (heading, banner, notes, table). */
  readonly blocks: readonly ReportBlock[];
}

/** The release files and report section of the module experiments of a run. */
export interface ModuleRelease {
  /** Release path -> exact text. */
  readonly files: ReadonlyMap<string, string>;
  /** One report section per scored experiment, in scorer order. */
  readonly reportBlocks: readonly ReportBlock[];
  /** The same sections with what they were built from, in scorer order (for the figures). */
  readonly sections: readonly ModuleSection[];
}

const ESTIMATE_COLUMNS = [
  'experiment',
  'systemId',
  'evidenceClass',
  'column',
  'label',
  'estimate',
  'lower',
  'upper',
  'level',
  'intervalOmittedReason',
  'worlds',
  'plannedWorlds',
] as const;

function jsonl(values: readonly unknown[]): string {
  return values.map((value) => `${canonicalJson(value)}\n`).join('');
}

/** `chart-data/per-world-<experiment>.csv`: one row per system x world, every column. */
function perWorldCsv(scores: ModuleScores): string {
  const columns = ['systemId', 'worldSeed', 'blockComplete', ...scores.scorer.columns];
  const rows = scores.observations.map(
    (o): Record<string, CsvCell> => ({
      systemId: o.systemId,
      worldSeed: o.worldSeed,
      blockComplete: o.blockComplete,
      ...o.values,
    }),
  );
  return toCsv(columns, rows);
}

function moduleFiles(
  scores: ModuleScores,
  estimates: readonly ModuleEstimate[],
): [string, string][] {
  const id = scores.scorer.experimentId;
  const files: [string, string][] = [
    [`scores/${id}.jsonl`, jsonl(scores.observations)],
    [
      `chart-data/${id}.json`,
      canonicalJson({ experiment: id, title: scores.scorer.title, estimates }),
    ],
    [
      `chart-data/${id}.csv`,
      toCsv(ESTIMATE_COLUMNS, estimates as unknown as Record<string, CsvCell>[]),
    ],
    [`chart-data/per-world-${id}.csv`, perWorldCsv(scores)],
  ];
  for (const [systemId, lines] of scores.traces)
    files.push([`traces/${systemId}/${id}.jsonl`, jsonl(lines)]);
  return files;
}

function intervalText(estimate: ModuleEstimate): string {
  if (estimate.lower === null || estimate.upper === null)
    return `no interval (${estimate.intervalOmittedReason ?? 'none'})`;
  return `[${formatNumber(estimate.lower)}, ${formatNumber(estimate.upper)}]`;
}

function moduleSection(
  manifest: RunManifest,
  scores: ModuleScores,
  estimates: readonly ModuleEstimate[],
): ReportBlock[] {
  const id = scores.scorer.experimentId;
  const scripted = manifest.systems.filter((s) => s.evidenceClass !== 'live_model');
  return [
    { kind: 'heading', level: 2, text: scores.scorer.title, id: `experiment-${id}` },
    ...(scripted.length === 0
      ? []
      : [
          {
            kind: 'banner' as const,
            text: `SCRIPTED BASELINE rows (${scripted.map((s) => s.id).join(', ')}): fixed rules with known behaviour, not models. They show that the scores separate the behaviours; they measure no model.`,
          },
        ]),
    ...scores.scorer.notes.map((text) => ({ kind: 'paragraph' as const, text })),
    {
      kind: 'table',
      caption: `${scores.scorer.title}: world means over complete blocks with ${Math.round(manifest.analysis.level * 100)}% world-cluster bootstrap intervals (chart-data/${id}.csv; per world: chart-data/per-world-${id}.csv)`,
      columns: ['System', 'Evidence', 'Estimand', 'Estimate', 'Interval', 'Worlds'],
      rows: estimates.map((e) => [
        e.systemId,
        e.evidenceClass,
        e.label,
        formatNumber(e.estimate),
        intervalText(e),
        `${e.worlds} of ${e.plannedWorlds}`,
      ]),
    },
  ];
}

/**
 * Analyses every experiment of a run that `scoreRun` scored through a per-world capability
 * (`scores.modules`, in scorer order) and returns its release files (`scores/<id>.jsonl`,
 * `traces/<system>/<id>.jsonl`, `chart-data/<id>.json|.csv`, `chart-data/per-world-<id>.csv`) and
 * report sections. A run without such an experiment gets nothing (the default pilot release is
 * unchanged). Pure in the records: `verifyRelease` recomputes the same bytes.
 */
export function buildModuleRelease(records: RunRecords, scores: RunScores): ModuleRelease {
  const files = new Map<string, string>();
  const sections: ModuleSection[] = [];
  for (const { worlds } of scores.modules.values()) {
    if (worlds === null) continue;
    const estimates = analyzeModule(records.manifest, worlds);
    for (const [path, text] of moduleFiles(worlds, estimates)) files.set(path, text);
    sections.push({
      scorer: worlds.scorer,
      estimates,
      blocks: moduleSection(records.manifest, worlds, estimates),
    });
  }
  return { files, reportBlocks: sections.flatMap((section) => section.blocks), sections };
}
