#!/usr/bin/env node
// Summarises a V8 CPU profile (`node --cpu-prof`): the top functions by self time and by inclusive
// time, and self time by file, each as a share of the sampled time. Used for
// docs/benchmarks/throughput.md; shares, not milliseconds, are what compare across a busy machine.
//
//   node scripts/cpu-profile-summary.mjs PROFILE.cpuprofile [TOP=30]
import { readFileSync } from 'node:fs';

const profile = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const top = Number(process.argv[3] ?? 30);
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map();
for (const node of profile.nodes)
  for (const child of node.children ?? []) parent.set(child, node.id);
const sampled = new Map();
for (const [i, id] of profile.samples.entries())
  sampled.set(id, (sampled.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
const total = [...sampled.values()].reduce((a, b) => a + b, 0);
const short = (url) => url.replace(/.*\/(packages|node_modules)\//, '$1/');
const label = (node) =>
  `${node.callFrame.functionName || '(anonymous)'} ${short(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`;
const self = new Map();
const files = new Map();
const inclusive = new Map();
const add = (map, key, value) => map.set(key, (map.get(key) ?? 0) + value);
for (const node of profile.nodes) {
  const time = sampled.get(node.id) ?? 0;
  if (time === 0) continue;
  add(self, label(node), time);
  add(files, short(node.callFrame.url) || node.callFrame.functionName, time);
  const seen = new Set();
  for (let id = node.id; id !== undefined; id = parent.get(id)) {
    const key = label(byId.get(id));
    if (!seen.has(key)) add(inclusive, key, time);
    seen.add(key);
  }
}
const show = (title, map) => {
  console.log(`\n${title} (${(total / 1e6).toFixed(1)} s sampled)`);
  for (const [key, time] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${((100 * time) / total).toFixed(1).padStart(5)}%  ${key}`);
};
show('self time by function', self);
show('self time by file', files);
show('inclusive time (async callers are cut at await)', inclusive);
