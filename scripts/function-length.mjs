#!/usr/bin/env node
// Reports functions longer than a screen in every package's src (issue 18: "no function ... is
// longer than a screen without a reason written beside it"; issue 34: the check covers every
// packages/*/src, with a ratchet for the long functions written before it did).
//
// A function may be longer when the line just above it (above its TSDoc, if any) says why:
//
//   // long-function: <reason>
//
// Measured with the TypeScript compiler API: a function's length is the number of source lines
// from its first to its last (nested functions included, since a reader has to hold them too).
// Test files and src/__fixtures__ are not measured. Exit 0 when every long function carries a
// reason or is on the ratchet list (scripts/function-length-ratchet.txt), 1 otherwise.
//
//   node scripts/function-length.mjs                  check (the lint step of `npm test` runs this)
//   node scripts/function-length.mjs --list           also list the annotated exceptions
//   node scripts/function-length.mjs --update-ratchet rewrite the ratchet after it fell
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** Longest function, in lines, allowed without a written reason. */
const MAX_FUNCTION_LINES = 60;

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Where the rule is enforced: every package's `src` (test files and fixtures excepted). */
const SCOPES = readdirSync(join(ROOT, 'packages'))
  .sort()
  .filter((name) => existsSync(join(ROOT, 'packages', name, 'src')))
  .map((name) => ({ dir: `packages/${name}/src`, match: /\.ts$/ }));

/**
 * The ratchet: the long functions that had no written reason when the check was widened to every
 * package (issue 34). Each is `file: name` (no line numbers, so edits elsewhere in a file do not
 * move it). The list may only shrink: a long function without a reason that is not on it fails
 * the check, and an entry that is no longer long (split, or given a reason) fails it too until it
 * is removed (`node scripts/function-length.mjs --update-ratchet`).
 */
const RATCHET_PATH = join(ROOT, 'scripts', 'function-length-ratchet.txt');

const MARKER = /\/\/\s*long-function:\s*(\S.*)$/;

function filesOf(scope) {
  const base = join(ROOT, scope.dir);
  const out = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        if (name !== '__fixtures__') walk(path);
        continue;
      }
      if (/\.test(-d)?\.ts$/.test(name) || name.endsWith('.d.ts')) continue;
      if (scope.match.test(name)) out.push(path);
    }
  };
  walk(base);
  return out;
}

function functionName(node) {
  if (node.name !== undefined) return node.name.getText();
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) {
    return parent.name.getText();
  }
  if (ts.isCallExpression(parent))
    return `(callback of ${parent.expression.getText().slice(0, 40)})`;
  return '(anonymous)';
}

/** The node whose leading comments belong to this function (a `const f = () =>` statement). */
function anchorOf(node) {
  let anchor = node;
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent)) anchor = parent.parent?.parent ?? parent;
  else if (ts.isPropertyAssignment(parent)) anchor = parent;
  return anchor;
}

/** The reason written just above the function (above its TSDoc and other comments), or null. */
function reasonAbove(sourceFile, node, lines) {
  const anchor = anchorOf(node);
  const firstCodeLine = sourceFile.getLineAndCharacterOfPosition(anchor.getStart(sourceFile)).line;
  for (let line = firstCodeLine - 1; line >= 0; line--) {
    const text = lines[line].trim();
    const found = MARKER.exec(text);
    if (found !== null) return found[1].trim();
    if (!(text.startsWith('//') || text.startsWith('/*') || text.startsWith('*'))) break;
  }
  return null;
}

function measure(path) {
  return measureSource(relative(ROOT, path), readFileSync(path, 'utf8'));
}

/** Every function of `text` longer than the limit, with the reason written above it or null. */
function measureSource(file, text) {
  const lines = text.split('\n');
  const sourceFile = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const first = sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile)).line;
      const last = sourceFile.getLineAndCharacterOfPosition(node.getEnd()).line;
      const length = last - first + 1;
      if (length > MAX_FUNCTION_LINES) {
        found.push({
          file,
          line: first + 1,
          name: functionName(node),
          length,
          reason: reasonAbove(sourceFile, node, lines),
        });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return found;
}

/**
 * The check checks itself first (so a broken measure cannot pass silently): a function of the
 * limit passes, one line more fails, a reason above the TSDoc (or above a `const f = () =>`)
 * allows it, and a reason further up, past code, does not.
 */
function selfTest() {
  const body = (lines) => Array.from({ length: lines - 2 }, (_, i) => `  const v${i} = ${i};`);
  const fn = (name, lines) => [`function ${name}() {`, ...body(lines), '}'].join('\n');
  const arrow = (name, lines) => [`const ${name} = () => {`, ...body(lines), '};'].join('\n');
  const cases = [
    [fn('atLimit', MAX_FUNCTION_LINES), []],
    [fn('tooLong', MAX_FUNCTION_LINES + 1), [['tooLong', null]]],
    [
      `// long-function: a table\n/** Doc. */\n${fn('allowed', MAX_FUNCTION_LINES + 5)}`,
      [['allowed', 'a table']],
    ],
    [
      `// long-function: a table\n${arrow('arrow', MAX_FUNCTION_LINES + 1)}`,
      [['arrow', 'a table']],
    ],
    [
      `// long-function: not mine\nconst x = 1;\n${fn('farAway', MAX_FUNCTION_LINES + 1)}`,
      [['farAway', null]],
    ],
  ];
  for (const [source, expected] of cases) {
    const found = measureSource('self-test.ts', source).map((entry) => [entry.name, entry.reason]);
    if (JSON.stringify(found) !== JSON.stringify(expected)) {
      console.error(
        `function-length self-test failed: expected ${JSON.stringify(expected)}, found ${JSON.stringify(found)}`,
      );
      process.exit(1);
    }
  }
}

/** `file: name` of an unexplained long function: its ratchet entry. */
function ratchetKey(entry) {
  return `${entry.file}: ${entry.name}`;
}

function readRatchet() {
  if (!existsSync(RATCHET_PATH)) return [];
  return readFileSync(RATCHET_PATH, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

function writeRatchet(keys) {
  const header = [
    '# Long functions (over 60 lines) without a `// long-function:` reason, written before the',
    '# function-length check covered every package (issue 34). This list may only shrink: split',
    '# one (or write why it stays long) and remove its line (`node scripts/function-length.mjs',
    '# --update-ratchet`). A new long function cannot be added here; it needs a split or a reason.',
    `# ${keys.length} entries.`,
  ];
  writeFileSync(RATCHET_PATH, `${[...header, ...keys].join('\n')}\n`);
}

/** Multiset difference: the keys of `a` not matched one for one in `b`. */
function minus(a, b) {
  const left = new Map();
  for (const key of b) left.set(key, (left.get(key) ?? 0) + 1);
  const out = [];
  for (const key of a) {
    const n = left.get(key) ?? 0;
    if (n > 0) left.set(key, n - 1);
    else out.push(key);
  }
  return out;
}

// long-function: one report with its three outcomes (new, stale, fine) read top to bottom
function main() {
  selfTest();
  const list = process.argv.includes('--list');
  const long = SCOPES.flatMap(filesOf).flatMap(measure);
  const unexplained = long.filter((entry) => entry.reason === null);
  const exceptions = long.filter((entry) => entry.reason !== null);
  const keys = unexplained.map(ratchetKey).sort();
  if (process.argv.includes('--update-ratchet')) {
    const added = minus(keys, readRatchet());
    if (added.length > 0 && !process.argv.includes('--seed')) {
      console.error(
        `function-length: the ratchet only falls; these are new, split them or give a reason:\n  ${added.join('\n  ')}`,
      );
      process.exit(1);
    }
    writeRatchet(keys);
    console.log(`function-length: ratchet rewritten (${keys.length} entries)`);
    return;
  }
  const ratchet = readRatchet();
  const added = minus(keys, ratchet);
  const gone = minus(ratchet, keys);
  if (list || added.length > 0) {
    for (const entry of exceptions) {
      console.log(
        `allowed  ${entry.file}:${entry.line} ${entry.name} (${entry.length} lines): ${entry.reason}`,
      );
    }
  }
  for (const entry of unexplained.filter((candidate) => added.includes(ratchetKey(candidate)))) {
    console.error(
      `too long ${entry.file}:${entry.line} ${entry.name} is ${entry.length} lines (limit ${MAX_FUNCTION_LINES})`,
    );
  }
  if (added.length > 0) {
    console.error(
      `\nfunction-length: ${added.length} function(s) longer than ${MAX_FUNCTION_LINES} lines without a reason and not on the ratchet (${relative(ROOT, RATCHET_PATH)}).\n` +
        'Split each into named functions, or write why it must stay long on the line just above it\n' +
        '(above its TSDoc):  // long-function: <reason>   (see scripts/function-length.mjs)',
    );
    process.exit(1);
  }
  if (gone.length > 0) {
    console.error(
      `function-length: the ratchet fell (good): ${gone.length} entr${gone.length === 1 ? 'y is' : 'ies are'} no longer long without a reason:\n  ${gone.join('\n  ')}\n` +
        'Record it: node scripts/function-length.mjs --update-ratchet (and commit the ratchet file)',
    );
    process.exit(1);
  }
  console.log(
    `function-length: every function in packages/*/src is at most ${MAX_FUNCTION_LINES} lines, says why (${exceptions.length}), or is on the ratchet (${keys.length}, may only fall)`,
  );
}

main();
