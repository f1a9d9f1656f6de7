#!/usr/bin/env node
// Release-from-a-copy proof (issue 15): a release verifies from a copy of its folder alone, on a
// machine with Node.js and npm but no network and no clone of this repository.
// 1. `chi pilot` (the built CLI) writes a small offline release, once for the default pilot and
//    once for the divergence protocol (issue 37), each proved as below;
// 2. the release folder is copied to a temporary folder outside the repository;
// 3. every command of the README's `sh` block runs there verbatim (`sh -c`), with a minimal
//    environment and the npm registry unreachable (npm_config_registry=http://127.0.0.1:9,
//    npm_config_offline=true): it must pass;
// 4. one number of the chart data (divergence: divergence.json) is changed: the verify command
//    must fail and name the file.
// Run after the build (CI: `pnpm run check`). CHI_KEEP_RELEASE_CHECK=1 keeps the folders.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const startedMs = Date.now();
const work = mkdtempSync(join(tmpdir(), 'chi-release-run-'));
const away = mkdtempSync(join(tmpdir(), 'chi-release-copy-'));

function fail(message) {
  throw new Error(`release-from-copy: ${message}`);
}

const CLI = join(root, 'packages', 'pilot', 'dist', 'cli.js');

/**
 * One proof: `argv` writes a run into `work/<name>`; its release is copied away; the README's
 * `sh` block runs verbatim in the copy; then one number of `tampered` is changed and the verify
 * command must fail naming it.
 */
function prove(name, argv, tampered) {
  const copy = join(away, name);
  execFileSync(process.execPath, [CLI, ...argv, '--out', join(work, name)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  cpSync(join(work, name, 'release'), copy, { recursive: true });
  if (!relative(root, copy).startsWith('..')) fail(`the copy ${copy} is inside the repository`);

  const readme = readFileSync(join(copy, 'README.md'), 'utf8');
  const block = /```sh\n([\s\S]*?)```/.exec(readme)?.[1];
  if (block === undefined) fail(`${name}: README.md has no sh block`);
  const commands = block
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line !== '');
  const verify = commands.find((command) => command.includes('verify'));
  if (verify === undefined) fail(`${name}: the README gives no verify command`);
  if (/\bnpx\b|\bnpm (?:i|install|exec)\b/.test(verify))
    fail(`${name}: the verify command would fetch packages: ${verify}`);

  // Only Node's own folder on PATH besides the system tools: no pnpm, no workspace, no network.
  const env = {
    PATH: [dirname(process.execPath), '/usr/bin', '/bin'].join(':'),
    HOME: away,
    npm_config_registry: 'http://127.0.0.1:9',
    npm_config_offline: 'true',
    npm_config_cache: join(away, 'npm-cache'),
  };
  const sh = (command) =>
    spawnSync('sh', ['-c', command], { cwd: copy, env, encoding: 'utf8', timeout: 300_000 });
  for (const command of commands) {
    const result = sh(command);
    if (result.status !== 0)
      fail(
        `${name}: \`${command}\` failed in the copy (exit ${result.status}):\n${result.stdout}${result.stderr}`,
      );
    console.log(`release-from-copy: ${name}: \`${command}\` passed in ${copy}`);
  }

  const text = readFileSync(join(copy, tampered), 'utf8');
  const changed = text.replace(/"estimate": ?(-?[0-9.]+)/, (whole, value) =>
    whole.replace(value, Number(value) === 0.5 ? '0.25' : '0.5'),
  );
  if (changed === text) fail(`${name}: no estimate to tamper with in ${tampered}`);
  writeFileSync(join(copy, tampered), changed);
  const result = sh(verify);
  const output = `${result.stdout}${result.stderr}`;
  if (result.status === 0) fail(`${name}: \`${verify}\` passed on a tampered ${tampered}`);
  if (!output.includes(tampered))
    fail(`${name}: \`${verify}\` failed on a tampered ${tampered} without naming it:\n${output}`);
  console.log(
    `release-from-copy: ${name}: \`${verify}\` fails on one changed number and names ${tampered} (exit ${result.status})`,
  );
}

try {
  prove(
    'release',
    [
      'pilot',
      '--systems',
      'perfect,latest-wins',
      '--replicates',
      '2',
      '--loads',
      '32',
      '--resamples',
      '200',
    ],
    'chart-data/chart-data.json',
  );
  // The divergence protocol's release verifies from a copy the same way (issue 37).
  prove(
    'divergence',
    ['pilot', '--protocol', 'divergence-v0.1', '--replicates', '1', '--resamples', '50'],
    'divergence.json',
  );
  console.log(`release-from-copy: passed in ${((Date.now() - startedMs) / 1000).toFixed(1)} s`);
} finally {
  // biome-ignore lint/suspicious/noUndeclaredEnvVars: a debugging switch of this script, not a turbo task input
  if (process.env.CHI_KEEP_RELEASE_CHECK === '1') console.log(`kept ${work} and ${away}`);
  else {
    rmSync(work, { recursive: true, force: true });
    rmSync(away, { recursive: true, force: true });
  }
}
