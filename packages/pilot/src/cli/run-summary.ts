import type { RunChartData } from '@chi/analysis';
import { chartPartOf } from '@chi/analysis';
import type { EimcEntry } from '@chi/analysis/internal';
import { partialRunText, runCompleteness } from '@chi/report/internal';
import { RUN_FILE_NAME } from '@chi/run/internal';
import type { EvidenceClass, RunStatus } from '@chi/spec';

function eimcText(entry: EimcEntry | undefined): string {
  if (entry === undefined) return '—';
  if (entry.status === 'no_passing_load' || entry.value === null) return 'none';
  return entry.status === 'lower_bound' ? `>=${entry.value}` : String(entry.value);
}

function usd(amount: number): string {
  return `${amount.toFixed(amount < 1 ? 4 : 2)} USD`;
}

/** The worlds a system's EIMC rests on, of the planned worlds: `4/4`, or `1/8` in a partial run. */
function worldsText(data: RunChartData, systemId: string, plannedWorlds: number): string {
  const entry = chartPartOf(data, 'memory').eimc.find((e) => e.systemId === systemId);
  return entry === undefined ? '—' : `${entry.worlds}/${plannedWorlds}`;
}

const NOT_LIVE_WORDS: Readonly<Record<Exclude<EvidenceClass, 'live_model'>, string>> = {
  scripted_baseline: 'scripted baselines',
  fixture: 'fixtures',
  synthetic: 'synthetic data',
  unverified_endpoint: 'unverified endpoints (what served them was not declared)',
};

/**
 * What the headline says about where its numbers came from. A run of scripted systems only (or
 * fixtures, synthetic data) keeps its words of old; an undeclared endpoint is never called a
 * scripted baseline (it may well be a model) nor a live model; a mixed run names each system
 * that is not a live model with what it is.
 */
function evidenceSuffix(systems: RunChartData['run']['systems']): string {
  const notLive = systems.filter((system) => system.evidenceClass !== 'live_model');
  if (notLive.length === 0) return '';
  const unverified = notLive.filter((system) => system.evidenceClass === 'unverified_endpoint');
  if (notLive.length === systems.length && unverified.length === 0)
    return ' — scripted baselines, not model measurements';
  if (unverified.length === systems.length)
    return ' — unverified endpoint: what served these answers was not declared; not labelled a live model';
  const classes = [...new Set(notLive.map((system) => system.evidenceClass))].sort();
  const named = classes.map((evidenceClass) => {
    const ids = notLive.filter((s) => s.evidenceClass === evidenceClass).map((s) => s.id);
    return `${ids.join(', ')}: ${NOT_LIVE_WORDS[evidenceClass as keyof typeof NOT_LIVE_WORDS]}`;
  });
  return ` — not every system is a live model (${named.join('; ')}), those are not model measurements`;
}

/**
 * The few headline numbers `chi pilot` prints to stdout before the release path: EIMC per system
 * at each tau (`>=N` a lower bound: the largest tested load passed; `none`: no load passed) with
 * the worlds it rests on, the failed requests and the spend. A partial run (a block not complete)
 * says so first, with its complete worlds of planned, so an EIMC of 1 of 8 worlds never reads as
 * the run's. Scripted results are labelled as such.
 */
export function formatHeadline(data: RunChartData, status: RunStatus): string[] {
  const taus = [...new Set(chartPartOf(data, 'memory').eimc.map((entry) => entry.tau))].sort(
    (a, b) => a - b,
  );
  const systems = data.run.systems;
  const width = Math.max(6, ...systems.map((system) => system.id.length));
  const completeness = runCompleteness(data);
  const partial = partialRunText(completeness);
  const lines = [
    `EIMC (largest tested load with Q_M >= tau; >=N lower bound, none = no passing load)${evidenceSuffix(systems)}:`,
    ...(partial === null
      ? []
      : [
          `  PARTIAL RUN — ${partial}: every number below rests on the complete worlds only, not the ${completeness.plannedWorlds} planned; resume the run for the planned estimate.`,
        ]),
    `  ${'system'.padEnd(width)}  ${taus.map((tau) => `tau ${tau}`.padStart(9)).join(' ')}   worlds`,
  ];
  for (const system of systems) {
    const cells = taus.map((tau) =>
      eimcText(
        chartPartOf(data, 'memory').eimc.find(
          (entry) => entry.systemId === system.id && entry.tau === tau,
        ),
      ).padStart(9),
    );
    const worlds = worldsText(data, system.id, completeness.plannedWorlds).padStart(8);
    lines.push(`  ${system.id.padEnd(width)}  ${cells.join(' ')} ${worlds}`);
  }
  const spend =
    status.spend.ceilingUsd === 0 && status.spend.chargedUsd === 0
      ? 'no spend (no paid request)'
      : `spent ${usd(status.spend.chargedUsd)} of a ${usd(status.spend.ceilingUsd)} ceiling`;
  lines.push(
    `Requests: ${status.requests.resolved} of ${status.requests.total} resolved, ${status.requests.failed} failed, ${status.requests.notSent} not sent; blocks: ${status.blocks.complete} complete, ${status.blocks.incomplete} incomplete${status.blocks.notStarted > 0 ? `, ${status.blocks.notStarted} not started` : ''}; ${spend}`,
  );
  return lines;
}

/** Quotes a path for a POSIX shell when it needs quoting. */
export function shellQuote(text: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * What `chi pilot` prints after an interruption: the block counts of `status.json` and the exact
 * command that resumes the run (with the flags a resume keeps).
 */
export function formatResumeHint(
  runDir: string,
  status: RunStatus,
  flags: { readonly release: boolean; readonly concurrency: number | null },
): string {
  const command = [
    'chi pilot --resume',
    shellQuote(runDir),
    ...(flags.concurrency === null ? [] : ['--concurrency', String(flags.concurrency)]),
    ...(flags.release ? [] : ['--no-release']),
  ].join(' ');
  const { complete, incomplete, notStarted } = status.blocks;
  return `chi: interrupted: ${complete} block(s) complete, ${incomplete} incomplete, ${notStarted} not started (${RUN_FILE_NAME.status}); ${status.requests.notSent} request(s) not sent. Resume with:\n  ${command}`;
}
