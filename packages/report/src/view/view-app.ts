/**
 * The viewer: one HTML page with an inline script and no framework (the page is small, and a
 * framework would be the largest part of a bundle that must open from the file system). It calls
 * the viewer's API (`api/summary` first, then a page of worlds, one world's items, one item, one
 * request) on the server, or reads the same answers from `window.CHI_VIEW_DATA` in a bundle; it
 * routes on the URL hash, and polls `api/progress` once a second while served, so a run in
 * progress updates without a reload.
 */
const SCRIPT = String.raw`
'use strict';
const $ = (html) => { const t = document.createElement('template'); t.innerHTML = html.trim(); return t.content; };
const esc = (v) => String(v ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
const enc = encodeURIComponent;
const served = window.CHI_VIEW_DATA === undefined;
const WORLD_PAGE = 10;
let summary = null;
let progress = null;
let rendering = 0;

// the canonical path of an API call: keys sorted, absent values left out (viewApiPath on the server)
function apiPath(name, params) {
  const query = Object.keys(params || {}).filter((k) => params[k] !== undefined && params[k] !== '').sort().map((k) => k + '=' + enc(String(params[k]))).join('&');
  return query === '' ? 'api/' + name : 'api/' + name + '?' + query;
}

async function api(name, params) {
  const path = apiPath(name, params);
  if (!served) {
    if (!(path in window.CHI_VIEW_DATA)) throw new Error('not in this bundle: ' + path);
    return window.CHI_VIEW_DATA[path];
  }
  const response = await fetch(path, { cache: 'no-store' });
  if (!response.ok) throw new Error(await response.text());
  return response.json();
}

function progressHtml() {
  if (progress === null) return '';
  const r = progress.requests;
  const failures = Object.entries(progress.failuresByClass);
  const spend = progress.offline ? '<p data-testid="spend">offline: no spend</p>' :
    '<p>Spend: <span data-testid="spend">$' + progress.spentUsd.toFixed(4) + '</span> of a $' + progress.ceilingUsd.toFixed(4) + ' ceiling.</p>';
  return '<section id="progress" data-testid="progress"><h2>Run progress <small data-testid="run-state">(' + esc(progress.state) + (served ? ', live' : ', snapshot') + ')</small></h2>' +
    (progress.damage ? '<p class="damage" data-testid="damage">Damaged run folder: ' + esc(progress.damage) + '</p>' : '') +
    '<table><tr><th>Registered</th><th>Resolved</th><th>In flight</th><th>Failed</th><th>Abandoned</th><th>Not started</th></tr>' +
    '<tr><td data-testid="total">' + progress.totalRequests + '</td><td data-testid="resolved">' + r.resolved + '</td><td data-testid="in-flight">' + r.inFlight + '</td><td data-testid="failed">' + r.failed + '</td><td>' + r.abandoned + '</td><td data-testid="not-started">' + r.notStarted + '</td></tr></table>' +
    spend + '<p>Failures by class: <span data-testid="failures">' + (failures.length === 0 ? 'none' : failures.map(([k, v]) => esc(k) + ' ' + v).join('; ')) + '</span></p></section>';
}

function blockHtml(b) {
  switch (b.kind) {
    case 'heading': return b.level === 2 ? '' : '<h3><a href="#/system/' + enc(b.id.replace(/^summary-/, '')) + '">' + esc(b.text) + '</a></h3>';
    case 'paragraph': return '<p>' + esc(b.text) + '</p>';
    case 'list': return '<ul>' + b.items.map((i) => '<li>' + esc(i) + '</li>').join('') + '</ul>';
    case 'table': return '<table data-testid="summary-table"><caption>' + esc(b.caption) + '</caption><tr>' + b.columns.map((c) => '<th>' + esc(c) + '</th>').join('') + '</tr>' +
      b.rows.map((r) => '<tr>' + r.map((c) => '<td>' + esc(c) + '</td>').join('') + '</tr>').join('') + '</table>';
    default: return '';
  }
}

function crumbs(parts) { return '<p class="crumbs"><a href="#/">Summary</a>' + parts.map((p) => ' › ' + p).join('') + '</p>'; }
function systemLink(id) { return '<a href="#/system/' + enc(id) + '">' + esc(id) + '</a>'; }

function summaryPage() {
  const systems = summary.systems.map((s) => '<li><a data-testid="system-link" href="#/system/' + enc(s.id) + '">' + esc(s.id) + '</a> (' + esc(s.model) + ')' + (s.reference ? ' — reference condition, not an evaluated system' : '') + '</li>').join('');
  const blocks = summary.summary === null ? '<p>No release yet: the summary appears once the run is scored and released.</p>' : summary.summary.map(blockHtml).join('');
  let compare = '';
  if (summary.systems.length > 1 && summary.worlds.length > 0) {
    const options = (chosen) => summary.systems.map((s, i) => '<option' + (i === chosen ? ' selected' : '') + '>' + esc(s.id) + '</option>').join('');
    compare = '<h2>Compare two systems</h2><form data-testid="compare-form" onsubmit="location.hash=' + "'#/compare/'+encodeURIComponent(this.a.value)+'/'+encodeURIComponent(this.b.value)+'/" + summary.worlds[0] + "'" + ';return false">' +
      '<select name="a" data-testid="compare-a">' + options(0) + '</select> vs <select name="b" data-testid="compare-b">' + options(1) + '</select> ' +
      '<button type="button" data-testid="compare-headline" onclick="headlineCompare(this.form.a.value, this.form.b.value)">Headline quantities, paired by world</button> ' +
      '<button data-testid="compare-items">Items of one world side by side</button></form>' +
      '<p>Headline quantities: each world\'s own Q_M per load, EIMC per τ and behavior indicators, B − A per world and its mean with a cluster-bootstrap interval over the worlds both have.</p>';
  }
  return '<h2>Summary</h2>' + blocks + '<h2>Systems</h2><p>' + summary.worlds.length + ' worlds.</p><ul>' + systems + '</ul>' + compare;
}

// the server's /compare page of two systems of this run; a bundle holds it as a static page
async function headlineCompare(a, b) {
  if (served) { location.href = 'compare?sa=' + enc(a) + '&sb=' + enc(b); return; }
  let entry;
  try { entry = await api('comparepage', { sa: a, sb: b }); } catch (error) { entry = { refused: String(error && error.message || error) }; }
  if (entry.file) { location.href = entry.file; return; }
  document.getElementById('page').replaceChildren($('<p class="banner" data-testid="compare-refused">Cannot compare ' + esc(a) + ' and ' + esc(b) + ': ' + esc(entry.refused) + '</p>'));
}

function reasonFilter(reasons, selected, base) {
  return '<label>Verdict reason: <select data-testid="reason-filter" onchange="location.hash=' + "'" + base + "'" + '+encodeURIComponent(this.value)"><option value="">all</option>' +
    reasons.map(([r, n]) => '<option' + (r === selected ? ' selected' : '') + ' value="' + esc(r) + '">' + esc(r) + (n === undefined ? '' : ' (' + n + ')') + '</option>').join('') + '</select></label>';
}

function pager(total, start, size, href) {
  if (total <= size) return '';
  const links = [];
  if (start > 0) links.push('<a data-testid="page-prev" href="' + href(Math.max(0, start - size)) + '">previous</a>');
  if (start + size < total) links.push('<a data-testid="page-next" href="' + href(start + size) + '">next</a>');
  return '<p class="pager">' + (start + 1) + '–' + Math.min(total, start + size) + ' of ' + total + ' ' + links.join(' · ') + '</p>';
}

async function systemPage(systemId, offsetText) {
  const offset = Number(offsetText) || 0;
  const page = await api('worlds', { system: systemId, offset, limit: WORLD_PAGE });
  const cells = [...new Map(page.rows.flatMap((r) => r.cells).map((c) => [c.cellPath, c])).values()].sort((a, b) => a.cellOrder - b.cellOrder);
  let html = crumbs([esc(systemId)]) + '<h2>' + esc(systemId) + '</h2><p>Each cell: its requests resolved so far; open it for its items and verdicts.</p>' +
    pager(page.total, offset, WORLD_PAGE, (o) => '#/system/' + enc(systemId) + '/' + o) +
    '<table data-testid="grid"><tr><th>World</th>' + cells.map((c) => '<th>' + esc(c.cell) + '</th>').join('') + '</tr>';
  for (const row of page.rows) {
    html += '<tr><th data-testid="world-row">' + row.worldSeed + '</th>' + cells.map((c) => {
      const own = row.cells.find((x) => x.cellPath === c.cellPath);
      if (!own) return '<td>—</td>';
      return '<td><a data-testid="cell-link" href="#/cell/' + enc(systemId) + '/' + row.worldSeed + '/' + c.cellPath + '">' + own.resolved + '/' + own.requests + ' resolved</a>' + (own.failed > 0 ? ' (' + own.failed + ' failed)' : '') + '</td>';
    }).join('') + '</tr>';
  }
  return html + '</table>';
}

function itemList(items) {
  return '<table data-testid="probe-list"><tr><th>Item</th><th>World</th><th>Cell</th><th>Stratum</th><th>Verdict</th><th>Reason</th></tr>' +
    items.map((p) => '<tr><td><a data-testid="probe-link" href="#/probe/' + enc(p.key) + '">' + esc(p.probeId) + '</a></td><td>' + p.worldSeed + '</td><td>' + esc(p.cell) + '</td><td>' + esc(p.stratum) + '</td><td class="' + esc(p.verdict) + '">' + esc(p.verdict) + '</td><td>' + esc(p.reason) + '</td></tr>').join('') + '</table>';
}

async function cellPage(systemId, world, cellPath, reason, startText) {
  const start = Number(startText) || 0;
  const page = await api('items', { system: systemId, world, cell: cellPath, reason: reason || undefined, start });
  const base = '#/cell/' + enc(systemId) + '/' + world + '/' + cellPath + '/';
  const cell = page.items[0] ? page.items[0].cell : cellPath;
  const all = Object.values(page.reasons).reduce((a, b) => a + b, 0);
  return crumbs([systemLink(systemId), 'world ' + esc(world), esc(cell)]) +
    '<h2>' + esc(systemId) + ', world ' + esc(world) + ', ' + esc(cell) + '</h2>' +
    '<p data-testid="cell-pass">' + page.pass + '/' + all + ' pass' + (page.items[0] && !page.items[0].blockComplete ? ' (block incomplete: excluded from comparisons)' : '') + '</p>' +
    reasonFilter(Object.entries(page.reasons), reason, base) +
    pager(page.total, start, 500, (s) => base + enc(reason || '') + '/' + s) + itemList(page.items);
}

function pre(text, id) { return '<pre data-testid="' + id + '">' + esc(text) + '</pre>'; }

function expectedText(p) {
  if (p.experiment !== 'memory') return esc(p.expectedValue);
  return p.expectedValue === null ? 'unknown (value and source null)' : 'value ' + esc(p.expectedValue) + ', source ' + esc(p.expectedSource);
}

async function probePage(key) {
  const [systemId, world] = key.split('|');
  const found = await api('item', { system: systemId, world, key });
  if (!found) return '<p>No such item.</p>';
  const p = found.item;
  const request = p.requestId ? await api('request', { id: p.requestId }) : null;
  const notebook = p.notebookPath ? (await api('notebook', { path: p.notebookPath })).text : null;
  const attempts = request ? request.attempts : [];
  return crumbs([systemLink(p.systemId), '<a href="#/cell/' + enc(p.systemId) + '/' + p.worldSeed + '/' + p.cellPath + '">world ' + p.worldSeed + ', ' + esc(p.cell) + '</a>', esc(p.probeId)]) +
    '<h2>' + (p.experiment === 'behavior' ? 'Behavioral item' : p.experiment === 'history' ? 'Decision' : 'Probe') + ' <span data-testid="probe-id">' + esc(p.probeId) + '</span></h2>' +
    '<table class="facts"><tr><th>Verdict</th><td data-testid="verdict">' + esc(p.verdict) + '</td></tr><tr><th>Reason</th><td data-testid="reason">' + esc(p.reason) + '</td></tr>' +
    '<tr><th>Stratum</th><td data-testid="stratum">' + esc(p.stratum) + '</td></tr><tr><th>Expected</th><td data-testid="expected">' + expectedText(p) + '</td></tr>' +
    '<tr><th>Answer as scored</th><td data-testid="answer">' + esc(p.answer) + '</td></tr><tr><th>Block</th><td>' + (p.blockComplete ? 'complete' : 'incomplete (excluded from comparisons)') + '</td></tr></table>' +
    '<h3>Question as sent</h3>' + pre(JSON.stringify(found.question), 'question') +
    '<details><summary>Whole request (' + esc(p.requestId) + ')</summary>' + (request ? request.messages : []).map((m) => '<h4>' + esc(m.role) + '</h4>' + pre(m.content, 'message')).join('') + '</details>' +
    '<h3>Expected answer and how it follows from the records</h3>' + pre(p.trace, 'trace') +
    '<h3>Model reply</h3>' + pre(request ? request.reply ?? '(no reply)' : '(never asked)', 'reply') +
    '<h3>Notebook the model had</h3>' + (notebook === null ? '<p>' + esc(p.notebookNote) + '</p>' : pre(notebook === '' ? '(empty)' : notebook, 'notebook')) +
    '<h3>Attempt log of the request</h3><table data-testid="attempts"><tr><th>Attempt</th><th>Phase</th><th>At</th><th>Failure</th><th>Tries (status, wait)</th><th>Charged USD</th><th>Latency ms</th></tr>' +
    attempts.map((a) => '<tr><td>' + esc(a.attemptId) + '</td><td>' + esc(a.phase) + '</td><td>' + esc(a.at) + '</td><td>' + esc(a.failure ?? '') + (a.failureDetail ? ' (' + esc(a.failureDetail) + ')' : '') + '</td><td>' + a.tries.map((t) => '#' + t.tryIndex + ' ' + esc(t.status ?? '—') + ' ' + esc(t.failure) + (t.waitMs === null ? '' : ', waited ' + t.waitMs + ' ms')).join('; ') + '</td><td>' + esc(a.chargedUsd ?? '') + '</td><td>' + esc(a.latencyMs ?? '') + '</td></tr>').join('') + '</table>';
}

async function comparePage(a, b, world, cellPath) {
  const index = summary.worlds.findIndex((w) => String(w) === String(world));
  const grid = await api('worlds', { system: a, offset: Math.max(0, index), limit: 1 });
  const cells = grid.rows[0] ? grid.rows[0].cells : [];
  const cell = cellPath || (cells[0] ? cells[0].cellPath : '');
  const [left, right] = await Promise.all([a, b].map((system) => api('items', { system, world, cell, start: 0 })));
  const key = (p) => p.probeId;
  const other = new Map(right.items.map((p) => [key(p), p]));
  const base = '#/compare/' + enc(a) + '/' + enc(b) + '/';
  const worlds = summary.worlds.map((w) => '<option' + (String(w) === String(world) ? ' selected' : '') + '>' + w + '</option>').join('');
  const cellOptions = cells.map((c) => '<option value="' + esc(c.cellPath) + '"' + (c.cellPath === cell ? ' selected' : '') + '>' + esc(c.cell) + '</option>').join('');
  let differ = 0;
  const rows = left.items.map((p) => {
    const q = other.get(key(p));
    const same = q && q.verdict === p.verdict;
    if (!same) differ++;
    return '<tr data-testid="compare-row"' + (same ? '' : ' class="differs"') + '><td>' + esc(p.probeId) + '</td><td>' + esc(p.stratum) + '</td><td><a href="#/probe/' + enc(p.key) + '">' + esc(p.verdict) + '</a> (' + esc(p.reason) + ')</td><td>' + (q ? '<a href="#/probe/' + enc(q.key) + '">' + esc(q.verdict) + '</a> (' + esc(q.reason) + ')' : '—') + '</td></tr>';
  }).join('');
  return crumbs(['compare ' + systemLink(a) + ' and ' + systemLink(b)]) + '<h2>' + esc(a) + ' vs ' + esc(b) + ', world ' + esc(world) + '</h2>' +
    '<label>World: <select data-testid="compare-world" onchange="location.hash=' + "'" + base + "'" + '+this.value">' + worlds + '</select></label> ' +
    '<label>Cell: <select data-testid="compare-cell" onchange="location.hash=' + "'" + base + enc(world) + "/'" + '+this.value">' + cellOptions + '</select></label>' +
    '<p data-testid="compare-summary">' + esc(a) + ' ' + left.pass + '/' + left.total + ' pass, ' + esc(b) + ' ' + right.pass + '/' + right.total + ' pass; <span data-testid="compare-differ">' + differ + '</span> of ' + left.items.length + ' items differ in verdict.</p>' +
    '<table data-testid="compare"><tr><th>Item</th><th>Stratum</th><th>' + esc(a) + '</th><th>' + esc(b) + '</th></tr>' + rows + '</table>';
}

async function pageHtml(parts) {
  if (parts[0] === 'system') return systemPage(parts[1], parts[2] || '0');
  if (parts[0] === 'cell') return cellPage(parts[1], parts[2], parts[3], parts[4] || '', parts[5] || '0');
  if (parts[0] === 'probe') return probePage(parts.slice(1).join('/'));
  if (parts[0] === 'compare') return comparePage(parts[1], parts[2], parts[3], parts[4] || '');
  return summaryPage();
}

async function render() {
  const turn = ++rendering;
  const parts = location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  let html;
  try {
    html = await pageHtml(parts);
  } catch (error) {
    html = '<p data-testid="data-error">This page could not be read (' + esc(error && error.message || error) + ').</p>';
  }
  if (turn !== rendering) return; // a later navigation won
  document.getElementById('page').replaceChildren($(html));
  document.getElementById('progress-slot').replaceChildren($(progressHtml()));
  document.body.dataset.ready = 'true';
}

async function poll() {
  try {
    progress = await api('progress');
    document.getElementById('progress-slot').replaceChildren($(progressHtml()));
  } catch (error) { /* the server stopped or the run cannot be read yet: keep the last progress shown */ }
  if (served) setTimeout(poll, 1000);
}

async function start() {
  try {
    summary = await api('summary');
  } catch (error) {
    summary = { runId: '', protocol: '', banner: null, systems: [], summary: null, worlds: [] };
    document.getElementById('page').replaceChildren($('<p data-testid="data-error">The run could not be read yet (' + esc(error && error.message || error) + '). Progress below is live; reload later.</p>'));
  }
  document.getElementById('run').textContent = 'Run ' + summary.runId + ' · ' + summary.protocol;
  if (summary.banner !== null) document.getElementById('banner').textContent = summary.banner;
  else document.getElementById('banner').remove();
  window.addEventListener('hashchange', render);
  if (summary.runId !== '') await render();
  document.body.dataset.ready = 'true';
  poll();
}
start();
`;

/** The viewer's style sheet (the folder index of `chi view` uses it too). */
export const VIEW_STYLE = `body{font-family:system-ui,sans-serif;margin:0;color:#111}main{max-width:1100px;margin:0 auto;padding:1rem 1.5rem}
.banner{background:#fff3cd;border:2px solid #b58100;padding:.5rem .8rem;font-weight:600}
table{border-collapse:collapse;font-size:.85rem;margin:.5rem 0}th,td{border:1px solid #ccc;padding:.2rem .45rem;text-align:left;vertical-align:top}
th{background:#f3f3f3}pre{background:#f6f6f6;padding:.5rem;white-space:pre-wrap;word-break:break-word;font-size:.8rem;max-height:30rem;overflow:auto}
#progress{border:1px solid #ccc;padding:.3rem .8rem;margin:.8rem 0}
.damage{color:#a40000;font-weight:600}.differs td{background:#fff0f0}.crumbs{color:#555}.pager{font-size:.85rem}
ul.runs{list-style:none;padding:0}ul.runs li{border:1px solid #ccc;margin:.3rem 0;padding:.4rem .8rem}ul.runs a{font-weight:600}
a{color:#1a4d8f}h1{font-size:1.4rem}`;

/**
 * The viewer page. `dataScript` is the `<script>` that defines `window.CHI_VIEW_DATA` in a bundle,
 * or empty when served (the page then calls `api/...`).
 */
export function viewPage(dataScript: string): string {
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>chi view</title>',
    `<style>${VIEW_STYLE}</style>`,
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
