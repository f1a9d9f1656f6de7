import { OKABE_ITO } from '@chi/figures/palette';
import type { BootstrapEstimate } from '@chi/stats';
import type { ViewStudy, ViewStudyRow, ViewStudySession } from './view-study';

/**
 * The two drawings of the study page, as inline SVG (no chart library: `chi view` stays on its
 * small module graph): the schedule on a time axis, and the CHIS trajectory across sessions.
 */

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A number in SVG coordinates: two decimals, no trailing zeros. */
const n = (value: number) => String(Math.round(value * 100) / 100);

/** Tick positions from 0 to the first at or past `max`, at most about nine. */
function dayTicks(max: number): number[] {
  const steps = [0.25, 0.5, 1, 2, 5, 7, 14, 28, 56, 91, 182, 365];
  const step = steps.find((s) => max / s <= 8) ?? Math.ceil(max / 8);
  const ticks: number[] = [];
  for (let t = 0; ; t += step) {
    ticks.push(Math.round(t * 100) / 100);
    if (t >= max - 1e-9) return ticks;
  }
}

/** How one session is drawn on the time axis: marker colour, fill and the words beside it. */
function sessionLook(s: ViewStudySession): { color: string; filled: boolean; label: string } {
  const date = s.dueAt.slice(0, 16).replace('T', ' ');
  switch (s.state) {
    case 'done':
      return s.early
        ? { color: OKABE_ITO.vermillion, filled: true, label: `early (--now), due ${date} UTC` }
        : { color: OKABE_ITO.blue, filled: true, label: 'done' };
    case 'in-progress':
      return { color: OKABE_ITO.orange, filled: true, label: 'in progress' };
    case 'due':
      return { color: OKABE_ITO.bluishGreen, filled: false, label: `due now (since ${date} UTC)` };
    case 'not-due':
      return {
        color: OKABE_ITO.black,
        filled: false,
        label: `not due: ${s.dueProjected ? 'at the earliest ' : ''}${date} UTC`,
      };
  }
}

const LANE = 30;
const LEFT = 48;
const WIDTH = 760;
const RIGHT = 250;

/** One session's lane: its due mark, where it started, and what it is. */
function sessionLane(s: ViewStudySession, y: number, x: (day: number) => number): string {
  const look = sessionLook(s);
  const due = x(s.dueDay);
  const parts = [
    `<text x="${LEFT - 8}" y="${n(y + 4)}" text-anchor="end" font-weight="600">s${s.sessionIndex}</text>`,
    // the due mark: a tick across the lane
    `<line data-testid="study-due" x1="${n(due)}" x2="${n(due)}" y1="${n(y - 9)}" y2="${n(y + 9)}" stroke="#000" stroke-width="2"${s.dueProjected ? ' stroke-dasharray="3 2"' : ''}><title>s${s.sessionIndex} due ${esc(s.dueAt)}${s.dueProjected ? ' (projected)' : ''}</title></line>`,
  ];
  let end = due;
  if (s.startDay !== null) {
    const start = x(s.startDay);
    if (Math.abs(start - due) > 1)
      parts.push(
        `<line x1="${n(Math.min(start, due))}" x2="${n(Math.max(start, due))}" y1="${n(y)}" y2="${n(y)}" stroke="${look.color}" stroke-dasharray="4 3"/>`,
      );
    parts.push(
      `<circle data-testid="study-session-mark" data-state="${s.state}" cx="${n(start)}" cy="${n(y)}" r="6" fill="${look.color}" stroke="${look.color}"><title>s${s.sessionIndex} started ${esc(s.startedAt ?? '')} (day ${s.startDay.toFixed(2)})</title></circle>`,
    );
    end = Math.max(start, due);
  } else
    parts.push(
      `<rect data-testid="study-session-mark" data-state="${s.state}" x="${n(due - 5)}" y="${n(y - 5)}" width="10" height="10" transform="rotate(45 ${n(due)} ${n(y)})" fill="#fff" stroke="${look.color}" stroke-width="2"><title>s${s.sessionIndex} ${esc(look.label)}</title></rect>`,
    );
  parts.push(
    `<text x="${n(end + 12)}" y="${n(y + 4)}" fill="${look.color === OKABE_ITO.black ? '#333' : look.color}" data-testid="study-session-label">${esc(look.label)}</text>`,
  );
  return parts.join('');
}

/**
 * The schedule on a time axis (days since s0 started): one lane per session, its due time marked
 * (a tick; dashed when projected), its actual start a filled dot (vermillion when it ran early,
 * with `--now`), a session not yet run an open diamond at its due time, and now a dashed line.
 */
export function studyTimeAxisSvg(study: ViewStudy): string {
  const nowDay = (Date.parse(study.now) - Date.parse(study.origin)) / 86_400_000;
  const days = study.sessions.flatMap((s) => [s.dueDay, s.startDay ?? 0]);
  const max = Math.max(1, nowDay, ...days);
  const ticks = dayTicks(max);
  const last = ticks.at(-1) ?? max;
  const plot = WIDTH - LEFT - RIGHT;
  const x = (day: number) => LEFT + (Math.max(0, day) / last) * plot;
  const top = 30; // room for the `now` label above the lanes
  const height = top + study.sessions.length * LANE + 40;
  const axisY = top + study.sessions.length * LANE;
  const grid = ticks
    .map(
      (t) =>
        `<line x1="${n(x(t))}" x2="${n(x(t))}" y1="${top - 6}" y2="${axisY}" stroke="#e4e4e4"/><text x="${n(x(t))}" y="${axisY + 16}" text-anchor="middle">${t}</text>`,
    )
    .join('');
  const lanes = study.sessions.map((s, i) => sessionLane(s, top + i * LANE + LANE / 2, x)).join('');
  const now =
    nowDay >= 0
      ? `<line data-testid="study-now" x1="${n(x(nowDay))}" x2="${n(x(nowDay))}" y1="${top - 10}" y2="${axisY}" stroke="${OKABE_ITO.skyBlue}" stroke-width="2" stroke-dasharray="6 3"/><text x="${n(x(nowDay))}" y="${top - 14}" text-anchor="middle" fill="#1a6f9e">now</text>`
      : '';
  return `<svg data-testid="study-time-axis" role="img" aria-labelledby="study-time-axis-title" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}" font-family="system-ui,sans-serif" font-size="12"><title id="study-time-axis-title">Sessions of ${esc(study.studyId)} on a time axis: days since s0 started</title>${grid}<line x1="${LEFT}" x2="${n(LEFT + plot)}" y1="${axisY}" y2="${axisY}" stroke="#000"/><text x="${n(LEFT + plot / 2)}" y="${axisY + 34}" text-anchor="middle">days since s0 started (${esc(study.origin)})</text>${now}${lanes}</svg>`;
}

/** The value an estimate's interval spans, or null. */
function bounds(e: BootstrapEstimate): [number, number] | null {
  return e.interval === null ? null : [e.interval.lower, e.interval.upper];
}

type Series = { readonly systemId: string; readonly rows: readonly ViewStudyRow[] };

/** One panel of the trajectory: a quantity of each system by session, with its interval. */
function trajectoryPanel(
  title: string,
  testId: string,
  series: readonly Series[],
  sessions: readonly { sessionIndex: number; label: string }[],
  value: (row: ViewStudyRow) => BootstrapEstimate,
  colors: ReadonlyMap<string, string>,
): string {
  const width = 360;
  const height = 230;
  const [left, top, bottom] = [44, 24, 40];
  const ys = series.flatMap((s) =>
    s.rows.flatMap((r) => [value(r).estimate ?? 0, ...(bounds(value(r)) ?? [])]),
  );
  const yMax = Math.max(1, ...ys);
  const plotW = width - left - 12;
  const plotH = height - top - bottom;
  const slot = plotW / Math.max(1, sessions.length);
  const y = (v: number) => top + plotH - (v / yMax) * plotH;
  const column = new Map(sessions.map((s, i) => [s.sessionIndex, i]));
  const x = (k: number, systemIndex: number) =>
    left +
    slot * ((column.get(k) ?? 0) + 0.5) +
    (systemIndex - (series.length - 1) / 2) * Math.min(8, slot / (2 * series.length));
  const yTicks = [0, 0.25, 0.5, 0.75, 1].map((f) => Math.round(f * yMax * 100) / 100);
  const axes = [
    ...yTicks.map(
      (t) =>
        `<line x1="${left}" x2="${n(left + plotW)}" y1="${n(y(t))}" y2="${n(y(t))}" stroke="#e4e4e4"/><text x="${left - 4}" y="${n(y(t) + 4)}" text-anchor="end">${t}</text>`,
    ),
    ...sessions.map(
      (s, i) =>
        `<text x="${n(left + slot * (i + 0.5))}" y="${height - bottom + 16}" text-anchor="middle">${esc(s.label)}</text>`,
    ),
    `<line x1="${left}" x2="${n(left + plotW)}" y1="${n(y(0))}" y2="${n(y(0))}" stroke="#000"/>`,
  ];
  const marks = series.flatMap((s, si) => {
    const color = colors.get(s.systemId) ?? '#000';
    const points = s.rows.filter((r) => value(r).estimate !== null);
    const line = points
      .map((r) => `${n(x(r.sessionIndex, si))},${n(y(value(r).estimate as number))}`)
      .join(' ');
    return [
      points.length < 2
        ? ''
        : `<polyline points="${line}" fill="none" stroke="${color}" stroke-width="1.5"/>`,
      ...points.map((r) => {
        const e = value(r);
        const b = bounds(e);
        const cx = x(r.sessionIndex, si);
        const whisker =
          b === null
            ? ''
            : `<line x1="${n(cx)}" x2="${n(cx)}" y1="${n(y(b[0]))}" y2="${n(y(b[1]))}" stroke="${color}" stroke-width="2"/>`;
        return `<g data-testid="${testId}-point">${whisker}<circle cx="${n(cx)}" cy="${n(y(e.estimate as number))}" r="4" fill="${color}"/><title>${esc(s.systemId)} s${r.sessionIndex}: ${fixedCell(e)}</title></g>`;
      }),
    ];
  });
  return `<svg data-testid="${testId}" role="img" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" font-family="system-ui,sans-serif" font-size="11"><title>${esc(title)}</title><text x="${left}" y="14" font-weight="600">${esc(title)}</text>${axes.join('')}${marks.join('')}</svg>`;
}

/** A number as `chi study report` writes it: three decimals, `n/a` for none. */
export const fixedNumber = (value: number | null): string =>
  value === null ? 'n/a' : value.toFixed(3);

/**
 * An estimate as `chi study report` writes it in `study-report.md`: `0.812 [0.750, 0.875]`, or
 * `no interval`; `—` for none (drift at s0).
 */
export function fixedCell(estimate: BootstrapEstimate | null): string {
  if (estimate === null) return '—';
  const interval =
    estimate.interval === null
      ? 'no interval'
      : `[${fixedNumber(estimate.interval.lower)}, ${fixedNumber(estimate.interval.upper)}]`;
  return `${fixedNumber(estimate.estimate)} ${interval}`;
}

/**
 * The CHIS trajectory across sessions for one memory load: world-mean Q_M and retention against
 * s0 of each system, by session (labelled with the report's day), each with its interval over
 * worlds; a legend of the systems' colours.
 */
export function studyTrajectorySvg(
  rows: readonly ViewStudyRow[],
  load: number,
  sessions: readonly { sessionIndex: number; label: string }[],
  colors: ReadonlyMap<string, string>,
): string {
  const own = rows.filter((r) => r.load === load);
  const series = [...new Set(own.map((r) => r.systemId))].map((systemId) => ({
    systemId,
    rows: own.filter((r) => r.systemId === systemId),
  }));
  const legend = series
    .map(
      (s) =>
        `<span class="key"><span class="swatch" style="background:${colors.get(s.systemId) ?? '#000'}"></span>${esc(s.systemId)}</span>`,
    )
    .join(' ');
  return `<div class="trajectory" data-testid="study-trajectory" data-load="${load}">${trajectoryPanel(`Q_M (world mean), load ${load}`, 'study-trajectory-qm', series, sessions, (r) => r.qualityScore, colors)}${trajectoryPanel(`Retention vs s0, load ${load}`, 'study-trajectory-retention', series, sessions, (r) => r.retention, colors)}<p class="legend">${legend}</p></div>`;
}
