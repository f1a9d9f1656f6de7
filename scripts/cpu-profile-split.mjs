#!/usr/bin/env node
// Splits a V8 CPU profile (`node --cpu-prof`) at an instant and summarises each side: self time
// and inclusive time by function, as shares of that side's sampled time. Used for issue 38 to
// separate `chi pilot`'s set-up (worlds generated, written and checked) from its request phase:
// the cut is the time of the first progress line (`1/N requests ... · 21.9 s`).
//
//   node scripts/cpu-profile-split.mjs PROFILE.cpuprofile SECONDS [TOP=25]
import { readFileSync } from 'node:fs';

const profile = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const cut = Number(process.argv[3]) * 1e6; // seconds from start
const top = Number(process.argv[4] ?? 25);
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const label = (n) =>
  `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.replace(/.*\/(packages|node_modules)\//, '$1/')}:${n.callFrame.lineNumber + 1}`;
const phases = [new Map(), new Map()];
const incl = [new Map(), new Map()];
const tot = [0, 0];
let t = 0;
for (const [i, id] of profile.samples.entries()) {
  const d = profile.timeDeltas[i] ?? 0;
  t += d;
  const p = t < cut ? 0 : 1;
  tot[p] += d;
  const n = byId.get(id);
  phases[p].set(label(n), (phases[p].get(label(n)) ?? 0) + d);
  const seen = new Set();
  let cur = id;
  while (cur !== undefined) {
    const l = label(byId.get(cur));
    if (!seen.has(l)) {
      seen.add(l);
      incl[p].set(l, (incl[p].get(l) ?? 0) + d);
    }
    cur = parent.get(cur);
  }
}
for (const p of [0, 1]) {
  console.log(`\n=== phase ${p} (${(tot[p] / 1e6).toFixed(1)} s) self`);
  for (const [k, v] of [...phases[p]].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${((100 * v) / tot[p]).toFixed(1).padStart(5)}%  ${k}`);
  console.log(`--- inclusive`);
  for (const [k, v] of [...incl[p]].sort((a, b) => b[1] - a[1]).slice(0, top + 15))
    console.log(`${((100 * v) / tot[p]).toFixed(1).padStart(5)}%  ${k}`);
}
