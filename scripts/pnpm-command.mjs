// The pnpm these scripts run: the one that started them (`pnpm run …` sets npm_execpath to its own
// entry), else the version package.json pins, through npx. A bare `pnpm` is on PATH only under
// `npx pnpm …`, so `node scripts/pack-check.mjs` run directly on a machine with only Node and npm
// would fail with ENOENT.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

const root = new URL('..', import.meta.url);

/**
 * The command and leading arguments that run the workspace's pnpm.
 * @returns {{ command: string, prefix: string[] }}
 */
export function pnpmCommand() {
  // biome-ignore lint/suspicious/noUndeclaredEnvVars: set by pnpm for the script it runs, not a turbo task input
  const execPath = process.env.npm_execpath ?? '';
  const name = basename(execPath);
  // pnpm's own script (`pnpm.cjs`) runs under this Node; its native build (`@pnpm/exe`) runs itself
  if (/^pnpm\.c?js$/.test(name)) return { command: process.execPath, prefix: [execPath] };
  if (name === 'pnpm') return { command: execPath, prefix: [] };
  const { packageManager } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
  return { command: 'npx', prefix: ['-y', packageManager] };
}
