#!/usr/bin/env node
// Reports functions longer than a screen in the runner, the analysis and the transport (issue 18:
// "no function ... is longer than a screen without a reason written beside it").
//
// A function may be longer when the line just above it (above its TSDoc, if any) says why:
//
//   // long-function: <reason>
//
// Measured with the TypeScript compiler API: a function's length is the number of source lines
// from its first to its last (nested functions included, since a reader has to hold them too).
// Test files are not measured. Exit 0 when every long function carries a reason, 1 otherwise.
//
//   node scripts/function-length.mjs            check (the lint step of `npm test` runs this)
//   node scripts/function-length.mjs --list     also list the annotated exceptions
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** Longest function, in lines, allowed without a written reason. */
const MAX_FUNCTION_LINES = 60;

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Where the rule is enforced: a directory (every .ts file below it) or a directory and a name pattern. */
const SCOPES = [
  { dir: 'packages/openrouter/src', match: /\.ts$/ },
  { dir: 'packages/experiment/src', match: /\.ts$/ },
  {
    dir: 'packages/pilot/src',
    match: /^run-[^/]*\.ts$/,
    shallow: true,
    label: 'packages/pilot/src/run-*.ts',
  },
  { dir: 'packages/report/src/analysis', match: /\.ts$/ },
  { dir: 'packages/report/src/experiment-scorers', match: /\.ts$/ },
];

const MARKER = /\/\/\s*long-function:\s*(\S.*)$/;

function filesOf(scope) {
  const base = join(ROOT, scope.dir);
  const out = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        if (!scope.shallow && name !== '__fixtures__') walk(path);
        continue;
      }
      if (name.endsWith('.test.ts') || name.endsWith('.d.ts')) continue;
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

function main() {
  selfTest();
  const list = process.argv.includes('--list');
  const long = SCOPES.flatMap(filesOf).flatMap(measure);
  const violations = long.filter((entry) => entry.reason === null);
  const exceptions = long.filter((entry) => entry.reason !== null);
  if (list || violations.length > 0) {
    for (const entry of exceptions) {
      console.log(
        `allowed  ${entry.file}:${entry.line} ${entry.name} (${entry.length} lines): ${entry.reason}`,
      );
    }
  }
  for (const entry of violations) {
    console.error(
      `too long ${entry.file}:${entry.line} ${entry.name} is ${entry.length} lines (limit ${MAX_FUNCTION_LINES})`,
    );
  }
  if (violations.length > 0) {
    console.error(
      `\nfunction-length: ${violations.length} function(s) longer than ${MAX_FUNCTION_LINES} lines in the runner, the analysis or the transport.\n` +
        'Split each into named functions, or write why it must stay long on the line just above it\n' +
        '(above its TSDoc):  // long-function: <reason>   (see scripts/function-length.mjs)',
    );
    process.exit(1);
  }
  console.log(
    `function-length: every function in ${SCOPES.map((scope) => scope.label ?? scope.dir).join(', ')} is at most ${MAX_FUNCTION_LINES} lines or says why (${exceptions.length} exception(s))`,
  );
}

main();
