import type { RunChartData } from '@chi/analysis';
import { partialRunText, runCompleteness } from '@chi/report/internal';
import { RUN_FILE_NAME } from '@chi/run/internal';
import type { EvidenceClass, RunStatus } from '@chi/spec';
import { RUN_HEADLINES, type RunHeadline } from './run-headlines';

function usd(amount: number): string {
  return `${amount.toFixed(amount < 1 ? 4 : 2)} USD`;
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
 * The few headline numbers `chi pilot` prints to stdout before the release path: each registered
 * experiment's table ({@link RUN_HEADLINES}: the capacity EIMC per system at each tau with the
 * worlds it rests on), the failed requests and the spend. A partial run (a block not complete)
 * says so under the first title, with its complete worlds of planned, so an estimate of 1 of 8
 * worlds never reads as the run's. Scripted results are labelled as such.
 */
export function formatHeadline(
  data: RunChartData,
  status: RunStatus,
  headlines: readonly RunHeadline[] = RUN_HEADLINES,
): string[] {
  const systems = data.run.systems;
  const completeness = runCompleteness(data);
  const partial = partialRunText(completeness);
  const lines: string[] = [];
  headlines.forEach((headline, index) => {
    lines.push(`${headline.title}${index === 0 ? evidenceSuffix(systems) : ''}:`);
    if (index === 0 && partial !== null)
      lines.push(
        `  PARTIAL RUN — ${partial}: every number below rests on the complete worlds only, not the ${completeness.plannedWorlds} planned; resume the run for the planned estimate.`,
      );
    lines.push(...headline.table(data, completeness.plannedWorlds));
  });
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
