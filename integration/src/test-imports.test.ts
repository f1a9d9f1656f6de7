import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runNode } from '../../tooling/vitest/child-process';

// scripts/test-imports.mjs: every workspace package imports only the workspace packages its
// package.json declares. Each case is a small workspace of its own (`--root`); the last runs the
// check on this repository.
const SCRIPT = join(import.meta.dirname, '..', '..', 'scripts', 'test-imports.mjs');

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A workspace of `@chi/low` and `@chi/high`; `high` declares `low`, `low` declares `extra`. */
function workspace(files: Readonly<Record<string, string>>): string {
  const root = mkdtempSync(join(tmpdir(), 'chi-test-imports-'));
  roots.push(root);
  const all: Record<string, string> = {
    'pnpm-workspace.yaml': 'packages:\n  - packages/*\n  # a comment\n  - integration\n',
    'packages/low/package.json': JSON.stringify({
      name: '@chi/low',
      devDependencies: { '@chi/extra': 'workspace:^' },
    }),
    'packages/extra/package.json': JSON.stringify({ name: '@chi/extra' }),
    'packages/high/package.json': JSON.stringify({
      name: '@chi/high',
      dependencies: { '@chi/low': 'workspace:^' },
    }),
    'integration/package.json': JSON.stringify({ name: '@chi/integration-tests' }),
    'packages/low/src/index.ts': 'export const low = 1;\n',
    'packages/high/src/index.ts': "export { low } from '@chi/low';\n",
    ...files,
  };
  for (const [path, text] of Object.entries(all)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

async function check(root?: string) {
  const { exit, stdout, stderr } = await runNode([SCRIPT, ...(root ? ['--root', root] : [])]);
  return { status: exit, stderr, stdout };
}

describe('scripts/test-imports.mjs', async () => {
  it('passes a workspace whose every import is declared (dependencies and devDependencies)', async () => {
    const result = await check(
      workspace({ 'packages/low/src/low.test.ts': "import { extra } from '@chi/extra';\n" }),
    );
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('4 workspace packages import only what they declare');
  });

  it('fails on a test that imports a package above its own, statically or dynamically', async () => {
    const result = await check(
      workspace({
        'packages/low/src/up.test.ts': "import { high } from '@chi/high/internal';\n",
        'packages/low/src/__fixtures__/lazy.ts': "export const load = () => import('@chi/high');\n",
      }),
    );
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      "packages/low/src/__fixtures__/lazy.ts: imports '@chi/high' (@chi/high), which packages/low/package.json does not declare",
    );
    expect(result.stderr).toContain(
      "packages/low/src/up.test.ts: imports '@chi/high/internal' (@chi/high)",
    );
    expect(result.stderr).toContain('2 undeclared workspace import(s)');
  });

  it('counts a relative path into another package as importing it', async () => {
    const result = await check(
      workspace({
        'integration/src/deep.test.ts': "import { low } from '../../packages/low/src/index';\n",
      }),
    );
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      "integration/src/deep.test.ts: imports '../../packages/low/src/index' (@chi/low), which integration/package.json does not declare",
    );
  });

  it('does not count an import written in a comment or a string', async () => {
    const result = await check(
      workspace({
        'packages/low/src/doc.ts':
          "/** @example import { high } from '@chi/high'; */\nexport const text = \"from '@chi/high'\";\n",
      }),
    );
    expect(result.status, result.stderr).toBe(0);
  });

  it("passes on this repository's workspace", async () => {
    const result = await check();
    expect(result.status, result.stderr).toBe(0);
  });
});
