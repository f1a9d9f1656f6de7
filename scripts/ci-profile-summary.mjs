#!/usr/bin/env node
// Summarises a CI profile (docs/benchmarks/ci.md, "Fifth pass") as Markdown tables:
//   node scripts/ci-profile-summary.mjs DIR [--top N]
// DIR holds what scripts/ci-profile.sh writes (phases.tsv, vitest-<project>.json, file-cpu.jsonl),
// or only a file-cpu.jsonl and a .vitest-report.json copied from a `.ci/run` made with
// CHI_FILE_CPU set. Prints the phases' CPU seconds, the vitest projects' files, tests and CPU
// seconds, and the top N (default 30) test files by CPU seconds (the worker's own and its waited-for
// children's; vitest's main process, which transforms the sources, is in no file's figure).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2];
if (dir === undefined) {
  console.error('usage: node scripts/ci-profile-summary.mjs DIR [--top N]');
  process.exit(2);
}
const topAt = process.argv.indexOf('--top');
const top = topAt === -1 ? 30 : Number(process.argv[topAt + 1]);
const fmt = (n) => n.toFixed(1);

function phases() {
  const path = join(dir, 'phases.tsv');
  if (!existsSync(path)) return;
  console.log('| phase | CPU s (user + sys) | wall s |\n| --- | --- | --- |');
  let total = 0;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const [name, user, sys, wall] = line.split('\t');
    if (wall === undefined) continue;
    const cpu = Number(user) + Number(sys);
    total += cpu;
    console.log(`| ${name} | ${fmt(cpu)} (${user} + ${sys}) | ${wall} |`);
  }
  console.log(`| sum | ${fmt(total)} | |\n`);
}

function fileCpu() {
  const path = join(dir, 'file-cpu.jsonl');
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

/** Test counts per file from the vitest JSON reports in DIR. */
function testCounts() {
  const counts = new Map();
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.json'))) {
    const report = JSON.parse(readFileSync(join(dir, name), 'utf8'));
    for (const file of report.testResults ?? []) {
      const rel = file.name.slice(file.name.search(/(packages|integration)\//));
      counts.set(rel, file.assertionResults.length);
    }
  }
  return counts;
}

/** `packages/<name>/...` is project <name>; a root workspace (`integration/...`) is its folder. */
const project = (file) =>
  (file.startsWith('packages/') ? file.split('/')[1] : file.split('/')[0]) ?? '?';

/** `list` grouped by `key` (Map.groupBy is Node 21+; `engines` allows 20). */
function groupBy(list, key) {
  const groups = new Map();
  for (const item of list) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}

phases();
const rows = fileCpu();
const counts = testCounts();
// Node 20 (npm test) and the matrix's Node 24 apart
const byNode = groupBy(rows, (row) => row.node ?? 'node');
for (const [node, list] of byNode) {
  const byProject = groupBy(list, (row) => project(row.file));
  console.log(`Test files under ${node}:\n`);
  console.log('| project | files | tests | CPU s in files |\n| --- | --- | --- | --- |');
  let total = 0;
  for (const [name, files] of [...byProject].sort()) {
    const cpu = files.reduce((sum, row) => sum + row.self + row.children, 0);
    const tests = files.reduce((sum, row) => sum + (counts.get(row.file) ?? 0), 0);
    total += cpu;
    console.log(`| ${name} | ${files.length} | ${tests} | ${fmt(cpu)} |`);
  }
  console.log(`| all | ${list.length} | | ${fmt(total)} |\n`);
  const sorted = [...list].sort((a, b) => b.self + b.children - (a.self + a.children));
  console.log(`Top ${top} files under ${node}:\n`);
  console.log('| file | tests | CPU s (worker + children) |\n| --- | --- | --- |');
  for (const row of sorted.slice(0, top))
    console.log(
      `| ${row.file} | ${counts.get(row.file) ?? '?'} | ${fmt(row.self + row.children)} (${fmt(row.self)} + ${fmt(row.children)}) |`,
    );
  console.log('');
}
