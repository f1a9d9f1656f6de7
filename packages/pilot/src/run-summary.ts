import type { ChartData } from '@chi/report';
import { RUN_FILE_NAME } from '@chi/run';
import type { RunStatus } from '@chi/spec';

function eimcText(entry: ChartData['eimc'][number] | undefined): string {
  if (entry === undefined) return '—';
  if (entry.status === 'no_passing_load' || entry.value === null) return 'none';
  return entry.status === 'lower_bound' ? `>=${entry.value}` : String(entry.value);
}

function usd(amount: number): string {
  return `${amount.toFixed(amount < 1 ? 4 : 2)} USD`;
}

/**
 * The few headline numbers `chi pilot` prints to stdout before the release path: EIMC per system
 * at each tau (`>=N` a lower bound: the largest tested load passed; `none`: no load passed),
 * the failed requests and the spend. Scripted results are labelled as such.
 */
export function formatHeadline(data: ChartData, status: RunStatus): string[] {
  const taus = [...new Set(data.eimc.map((entry) => entry.tau))].sort((a, b) => a - b);
  const systems = data.run.systems;
  const width = Math.max(6, ...systems.map((system) => system.id.length));
  const lines = [
    `EIMC (largest tested load with Q_M >= tau; >=N lower bound, none = no passing load)${data.run.systems.every((system) => system.evidenceClass !== 'live_model') ? ' — scripted baselines, not model measurements' : ''}:`,
    `  ${'system'.padEnd(width)}  ${taus.map((tau) => `tau ${tau}`.padStart(9)).join(' ')}`,
  ];
  for (const system of systems) {
    const cells = taus.map((tau) =>
      eimcText(
        data.eimc.find((entry) => entry.systemId === system.id && entry.tau === tau),
      ).padStart(9),
    );
    lines.push(`  ${system.id.padEnd(width)}  ${cells.join(' ')}`);
  }
  const spend =
    status.spend.ceilingUsd === 0 && status.spend.chargedUsd === 0
      ? 'no spend (no paid request)'
      : `spent ${usd(status.spend.chargedUsd)} of a ${usd(status.spend.ceilingUsd)} ceiling`;
  lines.push(
    `Requests: ${status.requests.resolved} of ${status.requests.total} resolved, ${status.requests.failed} failed, ${status.requests.notSent} not sent; blocks: ${status.blocks.complete} complete, ${status.blocks.incomplete} incomplete; ${spend}`,
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
