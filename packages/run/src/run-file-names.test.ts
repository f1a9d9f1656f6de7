import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { RUN_FILE_NAME, RUN_FOLDER_DIRECTORY } from './run-files';

const PACKAGES = join(import.meta.dirname, '..', '..');
const REPOSITORY = join(PACKAGES, '..');

/** Every non-test TypeScript source file under `packages/<name>/src`, except `@chi/run`'s. */
function sourceFiles(): string[] {
  const files: string[] = [];
  for (const name of readdirSync(PACKAGES)) {
    if (name === 'run') continue;
    const src = join(PACKAGES, name, 'src');
    let entries: string[];
    try {
      entries = readdirSync(src, { recursive: true, encoding: 'utf8' });
    } catch {
      continue;
    }
    for (const entry of entries)
      if (
        entry.endsWith('.ts') &&
        !/\.test(-d)?\.ts$/.test(entry) &&
        !entry.includes('__fixtures__')
      )
        files.push(join(src, entry));
  }
  return files.sort();
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// A name counts where it stands as a path token: not inside a longer file name (`x-status.json`)
// and, for a folder, at the start of a path (`payloads/...`), not in `@chi/chis/pure`.
const FILE_NAME = new RegExp(
  `(?<![A-Za-z0-9._-])(?:${Object.values(RUN_FILE_NAME).map(escapeRegExp).join('|')})(?![A-Za-z0-9_-])`,
);
const FOLDER = new RegExp(
  `(?<![A-Za-z0-9._@/-])(?:${Object.values(RUN_FOLDER_DIRECTORY).map(escapeRegExp).join('|')})/`,
);

/** The string pieces of a source file: string literals and template literal parts, not comments. */
function literals(file: string): { line: number; text: string }[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const out: { line: number; text: string }[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node)
    ) {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      out.push({ line, text: node.text });
    }
    node.forEachChild(visit);
  };
  visit(source);
  return out;
}

/** `file:line name` for every run-file or run-folder name spelled in a literal outside `@chi/run`. */
export function runFileNamesSpelledOutside(files: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of files)
    for (const { line, text } of literals(file)) {
      const match = FILE_NAME.exec(text) ?? FOLDER.exec(text);
      if (match !== null) found.push(`${relative(REPOSITORY, file)}:${line} ${match[0]}`);
    }
  return found;
}

describe('run-file names', () => {
  it('are spelled only in @chi/run: other packages name them through RUN_FILE_NAME and the paths builder', () => {
    expect(runFileNamesSpelledOutside(sourceFiles())).toEqual([]);
  });

  it('the scan finds a name in a string, a template and a message, but not in a comment', () => {
    const probe = literals(join(import.meta.dirname, '__fixtures__', 'spelled-run-files.ts'));
    const texts = probe.map((entry) => entry.text);
    expect(texts.filter((text) => FILE_NAME.test(text) || FOLDER.test(text))).toEqual([
      'status.json',
      '/attempts.jsonl',
      'payloads/',
      'no manifest.json here',
    ]);
  });
});
