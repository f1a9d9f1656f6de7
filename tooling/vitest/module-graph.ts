/**
 * The static module graph of a TypeScript entry in this repository, as the build would load it:
 * relative imports and re-exports, and `@chi/<package>[/<entry>]` followed into that package's
 * source (`src/<entry>.ts` or `src/<entry>/index.ts`). Type-only imports are skipped (they are
 * erased); dynamic `import()` is skipped (it loads on demand, which is the point of it). Anything
 * else is a bare dependency, recorded with the file that imports it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const REPO = resolve(import.meta.dirname, '../..');
const STATIC_IMPORT = /^\s*(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gms;

/** A bare dependency reached from the entry, with the chain of files that reaches it. */
export interface BareImport {
  readonly specifier: string;
  /** Repository-relative files from the entry to the importer. */
  readonly chain: readonly string[];
}

function sourceOf(base: string): string | null {
  // `./x.js` in a package built with `.js` specifiers (@chi/stats) is its `./x.ts`.
  const typescript = base.endsWith('.js') ? [`${base.slice(0, -3)}.ts`] : [];
  for (const path of [...typescript, `${base}.ts`, join(base, 'index.ts'), base])
    if (existsSync(path) && path.endsWith('.ts')) return path;
  return null;
}

function workspaceSource(specifier: string): string | null {
  const match = /^@chi\/([^/]+)(?:\/(.+))?$/.exec(specifier);
  if (match === null) return null;
  return sourceOf(join(REPO, 'packages', match[1] as string, 'src', match[2] ?? 'index'));
}

function chainTo(file: string, parents: ReadonlyMap<string, string | null>): string[] {
  const chain: string[] = [];
  for (let at: string | null | undefined = file; at; at = parents.get(at))
    chain.unshift(at.slice(REPO.length + 1));
  return chain;
}

interface Walk {
  readonly parents: ReadonlyMap<string, string | null>;
  readonly found: BareImport[];
}

function walk(entry: string, options: { readonly builtins?: boolean }): Walk {
  const parents = new Map<string, string | null>();
  const queue: [string, string | null][] = [[resolve(entry), null]];
  const found: BareImport[] = [];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const [file, parent] = next;
    if (parents.has(file)) continue;
    parents.set(file, parent);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(STATIC_IMPORT)) {
      if (specifier === undefined) continue;
      if (specifier.startsWith('node:')) {
        if (options.builtins === true) found.push({ specifier, chain: chainTo(file, parents) });
        continue;
      }
      const target = specifier.startsWith('.')
        ? sourceOf(resolve(dirname(file), specifier))
        : workspaceSource(specifier);
      if (target !== null) queue.push([target, file]);
      else found.push({ specifier, chain: chainTo(file, parents) });
    }
  }
  return { parents, found };
}

/**
 * Every bare (non-workspace) import statically reachable from `entry`; `node:` builtins too when
 * `options.builtins` is set (the analysis package's purity check), skipped otherwise.
 */
export function bareImportsOf(
  entry: string,
  options: { readonly builtins?: boolean } = {},
): BareImport[] {
  return walk(entry, options).found;
}

/**
 * Every workspace source file statically reachable from `entry` (itself included), each with the
 * chain of repository-relative files that reaches it, keyed by its repository-relative path.
 */
export function workspaceFilesOf(entry: string): Map<string, readonly string[]> {
  const { parents } = walk(entry, {});
  return new Map(
    [...parents.keys()].map((file) => [file.slice(REPO.length + 1), chainTo(file, parents)]),
  );
}

const ANY_IMPORT =
  /^\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.[^'"]+)['"]/gms;

/** The non-test TypeScript files under `dir`, recursively (fixtures excluded). */
function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === '__fixtures__' ? [] : sourcesUnder(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/**
 * The import cycles among the non-test files under `dir`: each group of two or more files that
 * reach one another through relative imports and re-exports (a strongly connected component),
 * type-only imports included, since a cycle of types still ties the files together. Each group
 * is its repository-relative paths, sorted; none is an acyclic graph.
 */
export function importCyclesIn(dir: string): string[][] {
  const files = sourcesUnder(resolve(dir));
  const inDir = new Set(files);
  const edges = new Map<string, string[]>();
  for (const file of files) {
    const targets: string[] = [];
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(ANY_IMPORT)) {
      const target = specifier === undefined ? null : sourceOf(resolve(dirname(file), specifier));
      if (target !== null && inDir.has(target)) targets.push(target);
    }
    edges.set(file, targets);
  }
  // Tarjan's strongly connected components.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file) as number);
    stack.push(file);
    onStack.add(file);
    for (const target of edges.get(file) ?? []) {
      if (!index.has(target)) visit(target);
      if (onStack.has(target))
        low.set(file, Math.min(low.get(file) as number, low.get(target) as number));
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member);
      group.push(member.slice(REPO.length + 1));
      if (member === file) break;
    }
    if (group.length > 1) groups.push(group.sort());
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return groups;
}
