/**
 * The viewer: one HTML page with an inline script and no framework (the page is small, and a
 * framework would be the largest part of a bundle that must open from the file system). It reads
 * its data from `window.CHI_VIEW_DATA` (a bundle) or `api/data` (the server), routes on the URL
 * hash, and polls `api/progress` once a second while served, so a run in progress updates
 * without a reload.
 */
const SCRIPT = String.raw`
'use strict';
const $ = (html) => { const t = document.createElement('template'); t.innerHTML = html.trim(); return t.content; };
const esc = (v) => String(v ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
const served = window.CHI_VIEW_DATA === undefined;
let data = null;
let progress = null;


function progressHtml() {
  if (progress === null) return '';
  const r = progress.requests;
  const failures = Object.entries(progress.failuresByClass);
  return '<section id="progress" data-testid="progress"><h2>Run progress <small>(' + esc(progress.state) + (served ? ', live' : ', snapshot') + ')</small></h2>' +
    '<table><tr><th>Registered</th><th>Resolved</th><th>In flight</th><th>Failed</th><th>Abandoned</th><th>Not started</th></tr>' +
    '<tr><td data-testid="total">' + progress.totalRequests + '</td><td data-testid="resolved">' + r.resolved + '</td><td data-testid="in-flight">' + r.inFlight + '</td><td data-testid="failed">' + r.failed + '</td><td>' + r.abandoned + '</td><td data-testid="not-started">' + r.notStarted + '</td></tr></table>' +
    '<p>Spend: <span data-testid="spend">$' + progress.spentUsd.toFixed(4) + '</span> of a $' + progress.ceilingUsd.toFixed(4) + ' ceiling.</p>' +
    '<p>Failures by class: <span data-testid="failures">' + (failures.length === 0 ? 'none' : failures.map(([k, v]) => esc(k) + ' ' + v).join('; ')) + '</span></p></section>';
}

function blockHtml(b) {
  switch (b.kind) {
    case 'heading': return b.level === 2 ? '' : '<h3><a href="#/system/' + encodeURIComponent(b.id.replace(/^summary-/, '')) + '">' + esc(b.text) + '</a></h3>';
    case 'banner': return '';
    case 'paragraph': return '<p>' + esc(b.text) + '</p>';
    case 'list': return '<ul>' + b.items.map((i) => '<li>' + esc(i) + '</li>').join('') + '</ul>';
    case 'table': return '<table data-testid="summary-table"><caption>' + esc(b.caption) + '</caption><tr>' + b.columns.map((c) => '<th>' + esc(c) + '</th>').join('') + '</tr>' +
      b.rows.map((r) => '<tr>' + r.map((c) => '<td>' + esc(c) + '</td>').join('') + '</tr>').join('') + '</table>';
    default: return '';
  }
}

function summaryPage() {
  if (data.error) return '<p data-testid="data-error">Probe data could not be read yet (' + esc(data.error) + '). Progress above is live; reload later to browse probes.</p>';
  const systems = data.systems.map((s) => '<li><a data-testid="system-link" href="#/system/' + encodeURIComponent(s.id) + '">' + esc(s.id) + '</a> (' + esc(s.model) + ')' + (s.reference ? ' — reference condition, not an evaluated system' : '') + '</li>').join('');
  const summary = data.summary === null ? '<p>No release yet: the summary appears once the run is scored and released.</p>' : data.summary.map(blockHtml).join('');
  return '<h2>Summary</h2>' + summary + '<h2>Systems</h2><ul>' + systems + '</ul>';
}

function reasonFilter(probes, selected, base) {
  const reasons = [...new Set(probes.map((p) => p.reason))].sort();
  return '<label>Verdict reason: <select data-testid="reason-filter" onchange="location.hash=' + "'" + base + "'" + '+encodeURIComponent(this.value)"><option value="">all</option>' +
    reasons.map((r) => '<option' + (r === selected ? ' selected' : '') + ' value="' + esc(r) + '">' + esc(r) + '</option>').join('') + '</select></label>';
}

function systemPage(systemId, reason) {
  const probes = data.probes.filter((p) => p.systemId === systemId);
  const worlds = [...new Set(probes.map((p) => p.worldSeed))].sort((a, b) => a - b);
  const cells = [...new Map(probes.map((p) => [p.cellPath, p])).values()].sort((a, b) => a.cellOrder - b.cellOrder);
  let html = '<p><a href="#/">Summary</a> › ' + esc(systemId) + '</p><h2>' + esc(systemId) + '</h2>';
  html += '<table data-testid="grid"><tr><th>World</th>' + cells.map((c) => '<th>' + esc(c.cell) + '</th>').join('') + '</tr>';
  for (const w of worlds) {
    html += '<tr><th>' + w + '</th>' + cells.map((c) => {
      const own = probes.filter((p) => p.worldSeed === w && p.cellPath === c.cellPath);
      const pass = own.filter((p) => p.verdict === 'pass').length;
      return '<td><a data-testid="cell-link" href="#/cell/' + encodeURIComponent(systemId) + '/' + w + '/' + c.cellPath + '">' + pass + '/' + own.length + ' pass</a>' + (own[0] && !own[0].blockComplete ? ' (incomplete)' : '') + '</td>';
    }).join('') + '</tr>';
  }
  html += '</table><h3>Probes by verdict reason</h3>' + reasonFilter(probes, reason, '#/system/' + encodeURIComponent(systemId) + '/');
  if (reason) html += probeList(probes.filter((p) => p.reason === reason));
  return html;
}

function probeList(probes) {
  return '<table data-testid="probe-list"><tr><th>Probe</th><th>World</th><th>Cell</th><th>Stratum</th><th>Verdict</th><th>Reason</th></tr>' +
    probes.map((p) => '<tr><td><a data-testid="probe-link" href="#/probe/' + encodeURIComponent(p.key) + '">' + esc(p.probeId) + '</a></td><td>' + p.worldSeed + '</td><td>' + esc(p.cell) + '</td><td>' + esc(p.stratum) + '</td><td>' + esc(p.verdict) + '</td><td>' + esc(p.reason) + '</td></tr>').join('') + '</table>';
}

function cellPage(systemId, world, cellPath, reason) {
  const all = data.probes.filter((p) => p.systemId === systemId && p.worldSeed === Number(world) && p.cellPath === cellPath);
  const shown = reason ? all.filter((p) => p.reason === reason) : all;
  const base = '#/cell/' + encodeURIComponent(systemId) + '/' + world + '/' + cellPath + '/';
  const cell = all[0] ? all[0].cell : cellPath;
  return '<p><a href="#/">Summary</a> › <a href="#/system/' + encodeURIComponent(systemId) + '">' + esc(systemId) + '</a> › world ' + esc(world) + ' › ' + esc(cell) + '</p>' +
    '<h2>' + esc(systemId) + ', world ' + esc(world) + ', ' + esc(cell) + '</h2>' + reasonFilter(all, reason, base) + probeList(shown);
}

function pre(text, id) { return '<pre data-testid="' + id + '">' + esc(text) + '</pre>'; }

function probePage(key) {
  const p = data.probes.find((x) => x.key === key);
  if (!p) return '<p>No such probe.</p>';
  const messages = p.requestId ? data.requests[p.requestId] ?? [] : [];
  const attempts = p.requestId ? data.attempts[p.requestId] ?? [] : [];
  const notebook = p.notebookKey === null ? null : data.notebooks[p.notebookKey];
  return '<p><a href="#/">Summary</a> › <a href="#/system/' + encodeURIComponent(p.systemId) + '">' + esc(p.systemId) + '</a> › <a href="#/cell/' + encodeURIComponent(p.systemId) + '/' + p.worldSeed + '/' + p.cellPath + '">world ' + p.worldSeed + ', ' + esc(p.cell) + '</a> › ' + esc(p.probeId) + '</p>' +
    '<h2>Probe <span data-testid="probe-id">' + esc(p.probeId) + '</span></h2>' +
    '<table class="facts"><tr><th>Verdict</th><td data-testid="verdict">' + esc(p.verdict) + '</td></tr><tr><th>Reason</th><td data-testid="reason">' + esc(p.reason) + '</td></tr>' +
    '<tr><th>Stratum</th><td data-testid="stratum">' + esc(p.stratum) + '</td></tr><tr><th>Expected</th><td data-testid="expected">' + (p.experiment === 'history' ? esc(p.expectedValue) : p.expectedValue === null ? 'unknown (value and source null)' : 'value ' + esc(p.expectedValue) + ', source ' + esc(p.expectedSource)) + '</td></tr>' +
    '<tr><th>Answer as scored</th><td data-testid="answer">' + esc(p.answer) + '</td></tr><tr><th>Block</th><td>' + (p.blockComplete ? 'complete' : 'incomplete (excluded from comparisons)') + '</td></tr></table>' +
    '<h3>Question as sent</h3>' + pre(JSON.stringify(p.question), 'question') +
    '<details><summary>Whole request (' + esc(p.requestId) + ')</summary>' + messages.map((m) => '<h4>' + esc(m.role) + '</h4>' + pre(m.content, 'message')).join('') + '</details>' +
    '<h3>Expected answer and how it follows from the records</h3>' + pre(p.trace, 'trace') +
    '<h3>Model reply</h3>' + pre(p.requestId ? data.replies[p.requestId] ?? '(no reply)' : '(never asked)', 'reply') +
    '<h3>Notebook the model had</h3>' + (notebook === null || notebook === undefined ? '<p>' + (p.condition === 'oracle' ? 'Oracle control: the original records were in context, no notebook.' : 'none') + '</p>' : pre(notebook === '' ? '(empty)' : notebook, 'notebook')) +
    '<h3>Attempt log of the request</h3><table data-testid="attempts"><tr><th>Attempt</th><th>Phase</th><th>At</th><th>Failure</th><th>Tries (status, wait)</th><th>Charged USD</th><th>Latency ms</th></tr>' +
    attempts.map((a) => '<tr><td>' + esc(a.attemptId) + '</td><td>' + esc(a.phase) + '</td><td>' + esc(a.at) + '</td><td>' + esc(a.failure ?? '') + (a.failureDetail ? ' (' + esc(a.failureDetail) + ')' : '') + '</td><td>' + a.tries.map((t) => '#' + t.tryIndex + ' ' + esc(t.status ?? '—') + ' ' + esc(t.failure) + (t.waitMs === null ? '' : ', waited ' + t.waitMs + ' ms')).join('; ') + '</td><td>' + esc(a.chargedUsd ?? '') + '</td><td>' + esc(a.latencyMs ?? '') + '</td></tr>').join('') + '</table>';
}

function render() {
  const parts = location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  let html;
  if (parts[0] === 'system') html = systemPage(parts[1], parts[2] || '');
  else if (parts[0] === 'cell') html = cellPage(parts[1], parts[2], parts[3], parts[4] || '');
  else if (parts[0] === 'probe') html = probePage(parts.slice(1).join('/'));
  else html = summaryPage();
  const page = document.getElementById('page');
  page.replaceChildren($(html));
  document.getElementById('progress-slot').replaceChildren($(progressHtml()));
}

async function poll() {
  try {
    const response = await fetch('api/progress', { cache: 'no-store' });
    if (response.ok) {
      progress = await response.json();
      document.getElementById('progress-slot').replaceChildren($(progressHtml()));
    }
  } catch (error) { /* the server stopped: keep the last progress shown */ }
  setTimeout(poll, 1000);
}

async function loadData() {
  if (!served) return window.CHI_VIEW_DATA;
  const response = await fetch('api/data', { cache: 'no-store' });
  if (!response.ok) throw new Error(await response.text());
  return response.json();
}

async function start() {
  try {
    data = await loadData();
  } catch (error) {
    // a run being written may not be readable yet: keep the live progress, say why probes are missing
    data = { runId: '', protocol: '', banner: null, systems: [], summary: null, probes: [], requests: {}, replies: {}, attempts: {}, notebooks: {}, progress: null, error: String(error && error.message || error) };
  }
  progress = data.progress;
  document.getElementById('run').textContent = 'Run ' + data.runId + ' · ' + data.protocol;
  if (data.banner !== null) document.getElementById('banner').textContent = data.banner;
  else document.getElementById('banner').remove();
  window.addEventListener('hashchange', render);
  render();
  document.body.dataset.ready = 'true';
  if (served) poll();
}
start();
`;

const STYLE = `body{font-family:system-ui,sans-serif;margin:0;color:#111}main{max-width:1100px;margin:0 auto;padding:1rem 1.5rem}
.banner{background:#fff3cd;border:2px solid #b58100;padding:.5rem .8rem;font-weight:600}
table{border-collapse:collapse;font-size:.85rem;margin:.5rem 0}th,td{border:1px solid #ccc;padding:.2rem .45rem;text-align:left;vertical-align:top}
th{background:#f3f3f3}pre{background:#f6f6f6;padding:.5rem;white-space:pre-wrap;word-break:break-word;font-size:.8rem;max-height:30rem;overflow:auto}
#progress{border:1px solid #ccc;padding:.3rem .8rem;margin:.8rem 0}`;

/**
 * The viewer page. `dataScript` is the `<script>` that defines `window.CHI_VIEW_DATA` in a bundle,
 * or empty when served (the page then fetches `api/data`).
 */
export function viewPage(dataScript: string): string {
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>chi view</title>',
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    '<main>',
    '<h1>chi view</h1>',
    '<p id="run"></p>',
    '<p id="banner" class="banner" role="note"></p>',
    '<div id="progress-slot"></div>',
    '<div id="page"><p>Loading…</p></div>',
    '</main>',
    dataScript,
    `<script>${SCRIPT}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
