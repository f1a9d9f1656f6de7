import { colorsForSystems } from '@chi/figures/palette';
import { VIEW_STYLE } from './view-app';
import type { ViewStudy, ViewStudyReport, ViewStudySession } from './view-study';
import { fixedCell, studyTimeAxisSvg, studyTrajectorySvg } from './view-study-svg';

/** Where the study page's links go: the server's routes, or a static bundle's files. */
export interface StudyPageLinks {
  /** A session's run page. */
  run(name: string): string;
  /** The comparison of two sessions (paired by world), or a string saying why there is none. */
  compare(a: string, b: string): { readonly href: string } | { readonly refused: string };
  /** The page's data as JSON (`api/study`), or null. */
  readonly json: string | null;
  /** HTML placed at the end of the page (the server's form comparing any two sessions). */
  readonly tail?: string;
}

/** The study page's links when served: `run/<name>/`, `compare?a=..&b=..`, `api/study`. */
export const SERVED_STUDY_LINKS: StudyPageLinks = {
  run: (name) => `run/${encodeURIComponent(name)}/`,
  compare: (a, b) => ({ href: `compare?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}` }),
  json: 'api/study',
};

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const usd = (amount: number) => `$${amount.toFixed(4)}`;

const STUDY_STYLE = `.axis{overflow-x:auto}.trajectory svg{margin-right:1rem}.legend .key{margin-right:1rem;white-space:nowrap}
.swatch{display:inline-block;width:.8rem;height:.8rem;margin-right:.3rem;vertical-align:-.1rem;border-radius:50%}
.over{color:#a40000;font-weight:600}code.hash{word-break:break-all}`;

const STATE_WORDS: Record<ViewStudySession['state'], string> = {
  done: 'done',
  'in-progress': 'in progress',
  due: 'due now',
  'not-due': 'not due',
};

/** A session's state, as the table says it (early and model changes included). */
function stateCell(s: ViewStudySession): string {
  const parts = [STATE_WORDS[s.state]];
  if (s.early) parts.push('<strong data-testid="study-early">early (--now)</strong>');
  if (s.modelChanges.length > 0)
    parts.push(
      `<strong class="over" data-testid="study-model-change">MODEL CHANGE: ${esc(s.modelChanges.join(', '))}</strong>`,
    );
  return parts.join('; ');
}

/** One row of the sessions table: when, how complete, what it spent, its links. */
function sessionRow(s: ViewStudySession, previous: ViewStudySession | null, links: StudyPageLinks) {
  const complete = s.blocks === null ? '—' : `${s.blocksComplete ?? 0} of ${s.blocks}`;
  const spend =
    s.chargedUsd === null
      ? `— of ${usd(s.ceilingUsd)}`
      : `<span${s.chargedUsd > s.ceilingUsd ? ' class="over"' : ''}>${usd(s.chargedUsd)}</span> of ${usd(s.ceilingUsd)}`;
  const run =
    s.run === null
      ? ''
      : `<a data-testid="run-link" href="${esc(links.run(s.run))}">run ${esc(s.run)}</a>`;
  let compare = '';
  if (s.run !== null && previous?.run != null) {
    const target = links.compare(previous.run, s.run);
    compare =
      'href' in target
        ? ` · <a data-testid="study-compare-link" href="${esc(target.href)}">compare with ${esc(previous.run)}</a>`
        : ` · <span title="${esc(target.refused)}">no comparison with ${esc(previous.run)}</span>`;
  }
  const day = (value: number | null) => (value === null ? '—' : value.toFixed(2));
  return `<tr data-testid="study-session" data-state="${s.state}"><td>s${s.sessionIndex}</td><td>${s.afterPreviousDays}</td><td>${esc(s.dueAt)}${s.dueProjected ? ' (at the earliest)' : ''}</td><td>${day(s.startDay)}</td><td>${esc(s.finishedAt ?? '—')}</td><td>${stateCell(s)}</td><td data-testid="study-complete">${complete}</td><td data-testid="study-spend">${spend}</td><td>${run}${compare}</td></tr>`;
}

/** The trajectory section: the report's numbers drawn and tabled, or why there are none. */
function trajectorySection(study: ViewStudy): string {
  const head = '<h2>CHIS trajectory across sessions</h2>';
  const state = study.report;
  if (state.state === 'missing')
    return `${head}<p class="banner" data-testid="study-not-reported">The study has not been reported yet: there is no study-report.json. Write it with <code>${esc(state.command)}</code> (chi study run writes it after the last session), then reload.</p>`;
  const report = state.report;
  const stale =
    state.stale.length === 0
      ? ''
      : `<p class="banner" data-testid="study-report-stale">The report does not cover ${state.stale.map((k) => `s${k}`).join(', ')}, which finished after it was written: <code>${esc(state.command)}</code> updates it.</p>`;
  const day = new Map(report.sessions.map((s) => [s.sessionIndex, s.day]));
  const sessions = [...new Set(report.rows.map((r) => r.sessionIndex))]
    .sort((a, b) => a - b)
    .map((k) => ({ sessionIndex: k, label: `s${k} · day ${(day.get(k) ?? 0).toFixed(2)}` }));
  const colors = colorsForSystems([...new Set(report.rows.map((r) => r.systemId))]);
  const loads = [...new Set(report.rows.map((r) => r.load))];
  const charts = loads
    .map((load) => studyTrajectorySvg(report.rows, load, sessions, colors))
    .join('');
  return `${head}${stale}<p>The numbers of <code>study-report.json</code> (<code>chi study report</code>), drawn as written: world-mean Q_M and retention against s0 (paired by world), each with its 95% cluster-bootstrap interval over worlds (pointwise). Session days are the report's: from day 0 to the session's finish.</p>${charts}${rowsTable(report)}${cohortList(report)}`;
}

/** The report's rows as its Markdown tables them. */
function rowsTable(report: ViewStudyReport): string {
  const rows = report.rows
    .map(
      (r) =>
        `<tr data-testid="study-row"><td>${esc(r.systemId)}</td><td>${r.load}</td><td>s${r.sessionIndex}</td><td>${r.delayDays.toFixed(2)}</td><td>${fixedCell(r.qualityScore)}</td><td>${fixedCell(r.retention)}</td><td>${fixedCell(r.retrievalRetention)}</td><td>${fixedCell(r.drift)}</td><td>${r.worlds}</td></tr>`,
    )
    .join('');
  return `<table data-testid="study-rows"><thead><tr><th>System</th><th>Load</th><th>Session</th><th>Delay (days)</th><th>Q_M</th><th>Retention vs s0</th><th>r retention vs s0</th><th>Drift vs previous</th><th>Worlds</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function cohortList(report: ViewStudyReport): string {
  if (report.cohorts === undefined || report.cohorts.length === 0) return '';
  const items = report.cohorts
    .map(
      (c) =>
        `<li>${esc(c.studyId)}: ${esc(c.systems.join(', '))}; ${c.sessionsDone} session(s) done</li>`,
    )
    .join('');
  return `<h3>Systems added later (each from its own day 0; the report pairs them by world)</h3><ul>${items}</ul>`;
}

/** The model-ID flag: unchanged, or the sessions whose returned models or providers changed. */
function modelFlag(study: ViewStudy): string {
  const changed = study.sessions.filter((s) => s.modelChanges.length > 0);
  if (changed.length === 0)
    return `<p data-testid="study-models-unchanged">Returned model IDs and providers: ${study.sessions.some((s) => s.state === 'done') ? 'unchanged across the finished sessions' : 'no session has finished yet'}.</p>`;
  return `<p class="banner" data-testid="study-models-changed">POSSIBLE PROVIDER-SIDE CHANGE: ${changed.map((s) => `s${s.sessionIndex} (${esc(s.modelChanges.join(', '))})`).join('; ')}: returned model IDs or providers differ from the previous session; never pooled silently.</p>`;
}

/**
 * The study page of `chi view STUDY_DIR`: the study's ID and frozen manifest hash, the schedule on
 * a time axis, each session's completeness and spend against the ceilings, the model-ID flag,
 * the CHIS trajectory from the study report, and links into each session's run page and the
 * comparison of consecutive sessions. Server-rendered, no script.
 */
export function studyPage(study: ViewStudy, links: StudyPageLinks): string {
  const total = `<span${study.spentUsd > study.ceilings.totalUsd ? ' class="over"' : ''}>${usd(study.spentUsd)}</span>`;
  const done = study.sessions.filter((s) => s.state === 'done').length;
  const body = [
    `<h1>Study ${esc(study.studyId)}</h1>`,
    study.banner === null
      ? ''
      : `<p class="banner" role="note" data-testid="study-banner">${esc(study.banner)}</p>`,
    `<p data-testid="study-manifest">${study.studyManifestSha256 === null ? 'Not frozen yet: the first session freezes and hashes the study manifest.' : `Frozen ${esc(study.frozenAt ?? '')}; study manifest SHA-256 <code class="hash">${esc(study.studyManifestSha256)}</code>.`}</p>`,
    `<p>Systems: ${esc(study.systems.join(', '))}. Primary (preregistered): retention at s${study.primary.session}, memory load ${study.primary.load}. ${done} of ${study.sessions.length} sessions done; spend ${total} of the total ceiling ${usd(study.ceilings.totalUsd)} (per session ${usd(study.ceilings.perSessionUsd)}). Drawn at ${esc(study.now)}.</p>`,
    '<h2>Sessions on a time axis</h2>',
    `<div class="axis">${studyTimeAxisSvg(study)}</div>`,
    '<p>Each lane: the due time (a tick; dashed when it depends on sessions not finished yet), the actual start (a dot: blue when run when due, vermillion when run early with <code>--now</code>, orange while in progress), a session not run yet as an open diamond; the dashed line is now.</p>',
    `<table data-testid="study-sessions"><thead><tr><th>Session</th><th>After previous (days)</th><th>Due</th><th>Started (day)</th><th>Finished</th><th>State</th><th>Blocks complete</th><th>Spend of ceiling (USD)</th><th>Pages</th></tr></thead><tbody>${study.sessions.map((s, i) => sessionRow(s, study.sessions[i - 1] ?? null, links)).join('')}</tbody></table>`,
    modelFlag(study),
    trajectorySection(study),
    links.json === null
      ? ''
      : `<p>This page's data as JSON: <a href="${esc(links.json)}">${esc(links.json)}</a>.</p>`,
    links.tail ?? '',
  ].join('\n');
  return `<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,"><title>chi view: study ${esc(study.studyId)}</title><style>${VIEW_STYLE}\n${STUDY_STYLE}</style></head><body><main>${body}</main></body></html>\n`;
}
