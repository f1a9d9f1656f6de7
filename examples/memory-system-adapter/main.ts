/**
 * `pnpm start`: the adapter's end-to-end check. Starts the adapter (`adapter.ts`) in front of the
 * stand-in product (`product-memory.ts`) on 127.0.0.1, a free port, runs the built `chi` CLI
 * against it exactly as a memory-system author would:
 *
 *     chi pilot --base-url http://127.0.0.1:PORT/v1 --models acme/memory --memory system \
 *       --price acme/memory=0,0 --ceiling-usd 0 --loads 32,64,128 --replicates 2 --no-history --no-behavior
 *
 * and checks what the release says: the manifest froze memory policy `system` and the declared
 * instance control; the product's 200-memory limit puts its EIMC at the derived 64 at every tau
 * (load N shows 2N + 2 floor(N/4) records: 160 fit at N = 64, 320 do not at N = 128); the
 * blank-memory control passes no recorded-value probe (no state leaks across instances); the
 * report states the system boundary. Exits non-zero on any failure. No network beyond loopback.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ADAPTER_MODEL, startAdapter } from './adapter';
import { createProductMemory, DEFAULT_MAX_ITEMS_PER_USER } from './product-memory';

const LOADS = [32, 64, 128];
/** Records shown at load N (N targets, N distractors, floor(N/4) updates and conflicts each). */
const recordsAt = (load: number) => 2 * load + 2 * Math.floor(load / 4);
const derivedEimc = Math.max(
  ...LOADS.filter((load) => recordsAt(load) <= DEFAULT_MAX_ITEMS_PER_USER),
);

const failures: string[] = [];
function check(ok: boolean, what: string): void {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures.push(what);
}

const cli = join(
  dirname(createRequire(import.meta.url).resolve('@chi/pilot/package.json')),
  'dist',
  'cli.js',
);
const root = mkdtempSync(join(tmpdir(), 'chi-memory-adapter-'));
const out = join(root, 'run');
const adapter = await startAdapter(createProductMemory());
try {
  const args = [
    ...['pilot', '--base-url', adapter.baseUrl, '--models', ADAPTER_MODEL, '--memory', 'system'],
    ...['--price', `${ADAPTER_MODEL}=0,0`, '--ceiling-usd', '0'],
    ...['--loads', LOADS.join(','), '--replicates', '2', '--no-history', '--no-behavior'],
    ...['--out', out],
  ];
  console.log(`chi ${args.join(' ')}`);
  // the adapter serves from this process: the CLI runs in a child without blocking its event loop
  const code = await new Promise<number>((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.on('exit', (status) => resolve(status ?? 1));
  });
  check(code === 0, `chi pilot exits 0 (got ${code})`);
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
  const system = manifest.systems[0];
  check(system.memory === 'system', 'the manifest froze memory policy system');
  check(
    system.instanceControl === 'chi-instance-control-v1',
    'the manifest froze the declared instance-control extension',
  );
  const chart = JSON.parse(
    readFileSync(join(out, 'release', 'chart-data', 'chart-data.json'), 'utf8'),
  ) as { eimc: { tau: number; value: number | null }[] };
  for (const row of chart.eimc)
    check(
      row.value === derivedEimc,
      `EIMC at tau ${row.tau} = ${row.value} (derived ${derivedEimc})`,
    );
  const report = readFileSync(join(out, 'release', 'report.md'), 'utf8');
  check(report.includes('System boundary:'), 'the report states who held the memory');
  check(!report.includes('STATE LEAK'), 'no state leaked into the blank-memory control');
  check(
    report.includes('Bytes stored by '),
    'the report lists the bytes stored your instance-control export reported',
  );
  console.log(`\nrelease: ${join(out, 'release')}`);
} finally {
  await adapter.close();
  if (failures.length === 0) rmSync(root, { recursive: true, force: true });
}
if (failures.length > 0) {
  console.error(`memory-system-adapter: ${failures.length} check(s) failed`);
  process.exit(1);
}
console.log('memory-system-adapter: every check passed');
