#!/usr/bin/env node
// Documentation that works verbatim on a machine with only Node and npm. For the README, docs/,
// the example READMEs and the package READMEs it
// 1. lints every shell block (```sh, ```bash, ```shell): no bare `pnpm` (write
//    `npx -y pnpm@12.4.2`), and no bare `chi` unless an earlier block of the same file defines
//    it (`chi() { ... }`); inline `pnpm ...` code spans are refused too, except in a file that
//    first says what `pnpm` stands for; every example README runs its example;
// 2. runs the blocks marked runnable (```sh runnable) of each file in order, in one bash session
//    per file (so a `chi` defined in one block is there in the next), from the repository root,
//    with `set -euo pipefail`, no API key in the environment, and TMPDIR pointing at a scratch
//    folder that is removed afterwards. Blocks that need a key or money are not marked runnable.
// Run after install and build (CI: `npm test` runs it in `check`). Exit 1 on any problem.
// `--share-tarballs DIR`: a block that packs the packages (`npx ... pack --pack-destination D`,
// the README's install block) also leaves a copy of the tarballs it packed in DIR, emptied first:
// `check` hands them to scripts/pack-check.mjs (`--tarballs-from DIR`) instead of packing the same
// packages a second time (docs/benchmarks/ci.md, "Seventh pass").
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const PER_FILE_TIMEOUT_MS = 600_000;
const SHELLS = new Set(['sh', 'bash', 'shell']);
const PNPM_DEFINED = '`pnpm` below is `npx -y pnpm@12.4.2`';

function markdownFiles() {
  const list = ['README.md'];
  const add = (dir, pick) => {
    if (!existsSync(join(root, dir))) return;
    for (const name of readdirSync(join(root, dir)).sort()) {
      const path = pick(name);
      if (path !== null && existsSync(join(root, dir, path))) list.push(join(dir, path));
    }
  };
  add('docs', (name) => (name.endsWith('.md') ? name : null));
  add('examples', (name) => join(name, 'README.md'));
  add('packages', (name) => join(name, 'README.md'));
  if (existsSync(join(root, 'packages/pilot/RUN-FOLDER.md')))
    list.push('packages/pilot/RUN-FOLDER.md');
  return list;
}

/** The fenced code blocks of a Markdown text: language, the words after it, body, line. */
export function codeBlocks(text) {
  const blocks = [];
  const pattern = /^```([A-Za-z]*)([^\n]*)\n([\s\S]*?)^```[ \t]*$/gm;
  for (const match of text.matchAll(pattern)) {
    blocks.push({
      language: match[1],
      words: match[2].trim().split(/\s+/).filter(Boolean),
      body: match[3],
      line: text.slice(0, match.index).split('\n').length,
    });
  }
  return blocks;
}

function lint(file, text) {
  const problems = [];
  let chiDefined = false;
  for (const block of codeBlocks(text)) {
    if (!SHELLS.has(block.language)) continue;
    for (const [offset, raw] of block.body.split('\n').entries()) {
      const line = raw.trim();
      const at = `${file}:${block.line + 1 + offset}`;
      if (/^pnpm\b/.test(line)) problems.push(`${at}: bare pnpm; write npx -y pnpm@12.4.2`);
      if (/^chi\(\)\s*\{/.test(line) || /;\s*chi\(\)\s*\{/.test(line)) chiDefined = true;
      if (/^chi\b(?!\()/.test(line) && !chiDefined)
        problems.push(`${at}: bare chi before the file defines it (chi() { ... })`);
    }
  }
  if (!text.includes(PNPM_DEFINED)) {
    const prose = text.replace(/^```[\s\S]*?^```/gm, '');
    for (const match of prose.matchAll(/`pnpm (?!pack\b)[^`]*`/g))
      problems.push(
        `${file}: inline ${match[0]}: write npx -y pnpm@12.4.2, or say first what pnpm is`,
      );
  }
  const example = /^examples\/([^/]+)\/README\.md$/.exec(file);
  if (example !== null) {
    const runs = codeBlocks(text).some(
      (block) =>
        block.words.includes('runnable') &&
        block.body.includes(`--filter ./examples/${example[1]} start`),
    );
    if (!runs)
      problems.push(
        `${file}: no runnable block runs the example (--filter ./examples/${example[1]} start)`,
      );
  }
  return problems;
}

// The install and build line every runnable block starts with (README, docs, every example):
// the same two commands each time, run against the same checkout. The first file runs them
// verbatim; the files after it find them done, as does every file when the caller says the
// checkout is installed and built already (CHI_DOCS_CHECK_BUILT=1: `npm test` has just run both
// itself). Anything else a block runs (`npm run pilot`, the examples' `start`) runs as written.
const SETUP_COMMANDS = ['-y pnpm@12.4.2 install --frozen-lockfile', '-y pnpm@12.4.2 run build'];
// biome-ignore lint/suspicious/noUndeclaredEnvVars: a switch of this script, not a turbo task input
let setupDone = process.env.CHI_DOCS_CHECK_BUILT === '1';

const shareAt = process.argv.indexOf('--share-tarballs');
const shareTarballs = shareAt === -1 ? null : resolve(process.argv[shareAt + 1] ?? '');
if (shareTarballs !== null) {
  rmSync(shareTarballs, { recursive: true, force: true });
  mkdirSync(shareTarballs, { recursive: true });
}

/**
 * A bash `npx` that skips the setup commands once they have run (see SETUP_COMMANDS), and copies
 * what a pack command packed into CHI_DOCS_SHARE_TARBALLS when that is set (`--share-tarballs`).
 * Every other command, the pack command itself included, runs as written.
 */
function npxWrapper() {
  const tests = SETUP_COMMANDS.map((command) => `[ "$*" = ${JSON.stringify(command)} ]`);
  return [
    'npx() {',
    `  if [ -n "\${CHI_DOCS_CHECK_BUILT:-}" ] && { ${tests.join(' || ')}; }; then`,
    '    echo "docs-check: npx $* (done already in this checkout)"; return 0',
    '  fi',
    '  command npx "$@" || return $?',
    `  if [ -n "\${CHI_DOCS_SHARE_TARBALLS:-}" ] && [[ "$*" == *" pack --pack-destination "* ]]; then`,
    `    cp "\${@: -1}"/*.tgz "$CHI_DOCS_SHARE_TARBALLS"/`,
    '    echo "docs-check: kept a copy of the tarballs for pack-check"',
    '  fi',
    '}',
  ].join('\n');
}

function runFile(file, text) {
  const runnable = codeBlocks(text).filter(
    (block) => SHELLS.has(block.language) && block.words.includes('runnable'),
  );
  if (runnable.length === 0) return null;
  const scratch = mkdtempSync(join(tmpdir(), 'chi-docs-check-'));
  const script = [
    'set -euo pipefail',
    npxWrapper(),
    ...runnable.map((block) => `cd "$CHI_DOCS_ROOT"\n${block.body}`),
  ].join('\n');
  const env = { ...process.env, TMPDIR: scratch, CHI_DOCS_ROOT: root };
  if (shareTarballs !== null) env.CHI_DOCS_SHARE_TARBALLS = shareTarballs;
  if (setupDone) env.CHI_DOCS_CHECK_BUILT = '1';
  else delete env.CHI_DOCS_CHECK_BUILT;
  delete env.OPENROUTER_API_KEY;
  delete env.OPENAI_API_KEY;
  console.log(`\n=== ${file}: ${runnable.length} runnable block(s)`);
  const started = Date.now();
  const run = spawnSync('bash', ['-c', script], {
    cwd: root,
    env,
    stdio: 'inherit',
    timeout: PER_FILE_TIMEOUT_MS,
  });
  rmSync(scratch, { recursive: true, force: true });
  if (run.status === 0 && SETUP_COMMANDS.every((command) => script.includes(`npx ${command}`)))
    setupDone = true;
  return {
    ok: run.status === 0,
    seconds: ((Date.now() - started) / 1000).toFixed(1),
    blocks: runnable.length,
  };
}

const files = markdownFiles();
const problems = files.flatMap((file) => lint(file, readFileSync(join(root, file), 'utf8')));
for (const problem of problems) console.error(`docs-check: ${problem}`);
const runs = [];
if (process.argv.includes('--lint-only') === false) {
  for (const file of files) {
    const result = runFile(file, readFileSync(join(root, file), 'utf8'));
    if (result !== null) runs.push({ file, ...result });
  }
}
console.log('\ndocs-check:');
for (const run of runs)
  console.log(
    `  ${run.ok ? 'ok    ' : 'FAILED'} ${relative(root, join(root, run.file))} (${run.blocks} block(s), ${run.seconds} s)`,
  );
console.log(`  ${problems.length} lint problem(s) in ${files.length} files`);
process.exit(problems.length === 0 && runs.every((run) => run.ok) ? 0 : 1);
