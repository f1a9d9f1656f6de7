/**
 * Throughput of the JSONL reader and the dynamics (the writer's appends: `@chi/run`'s
 * `bench/jsonl-writer.bench.ts`), run with `pnpm --filter @chi/chis bench`
 * (`tsx bench/jsonl-log.bench.ts`). Plain `performance.now()` around whole workloads; each
 * workload runs three times after a warm-up and the median is reported. Entries are realistic CHIS
 * entries from the synthetic generator (about 500 bytes per line). The temporary files live in the
 * OS temp directory, so fsync figures depend on the disk behind it.
 */
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ChisEntry, ChisEntrySchema } from '@chi/spec';
import {
  continuity,
  drift,
  generateSyntheticTrajectories,
  readJsonl,
  stability,
  streamJsonl,
} from '../src/index';
import { serializeJsonlLine } from '../src/jsonl-lines';
import { groupTrajectories } from '../src/trajectories';

const directory = await mkdtemp(join(tmpdir(), 'chis-bench-'));

function syntheticEntries(count: number): ChisEntry[] {
  const replicates = Math.ceil(count / 49);
  const { entries } = generateSyntheticTrajectories({
    seed: 1,
    replicates,
    baseline: 0.3,
    driftRate: 0.01,
    interventionEffect: 0.2,
    noise: 0.02,
    fault: { at: 3, size: 0.3, recoveryFraction: 0.75 },
    pathDependence: 0.1,
    historyEffect: 0.2,
    accumulationRate: 1,
  });
  return entries.slice(0, count);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function timed(run: () => Promise<unknown> | unknown, repetitions = 3): Promise<number> {
  await run();
  const samples: number[] = [];
  for (let i = 0; i < repetitions; i++) {
    const start = performance.now();
    await run();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

const rows: { workload: string; records: number; medianMs: string; perSecond: string }[] = [];
async function report(workload: string, records: number, run: () => Promise<unknown> | unknown) {
  const ms = await timed(run);
  rows.push({
    workload,
    records,
    medianMs: ms.toFixed(1),
    perSecond: Math.round((records / ms) * 1000).toLocaleString('en-US'),
  });
}

const large = syntheticEntries(20_000);
const lineBytes = Buffer.byteLength(serializeJsonlLine(ChisEntrySchema, large[0], 'entry'));

await report('serialize + validate only (no I/O)', large.length, () => {
  for (const entry of large) serializeJsonlLine(ChisEntrySchema, entry, 'entry');
});

const readPath = join(directory, 'read.jsonl');
const readRecords = 100_000;
await writeFile(
  readPath,
  syntheticEntries(readRecords)
    .map((entry) => serializeJsonlLine(ChisEntrySchema, entry, 'entry'))
    .join(''),
);
await report('readJsonl (validate every line)', readRecords, () =>
  readJsonl(readPath, ChisEntrySchema),
);
await report('streamJsonl (validate every line)', readRecords, async () => {
  for await (const _ of streamJsonl(readPath, ChisEntrySchema));
});

// Peak heap growth while streaming vs reading everything (sampled every 1000 records).
function heapMb() {
  return process.memoryUsage().heapUsed / 2 ** 20;
}
globalThis.gc?.();
let base = heapMb();
let peak = base;
let seen = 0;
for await (const _ of streamJsonl(readPath, ChisEntrySchema))
  if (++seen % 1000 === 0) peak = Math.max(peak, heapMb());
const streamPeakMb = peak - base;
globalThis.gc?.();
base = heapMb();
const all = await readJsonl(readPath, ChisEntrySchema);
const readAllMb = heapMb() - base;

const groupMs = await timed(() => groupTrajectories(all.records));
const { trajectories } = groupTrajectories(all.records);
const dynamicsMs = await timed(() => {
  for (const trajectory of trajectories) {
    continuity(trajectory.entries);
    drift(trajectory.entries);
    stability(trajectory.entries);
  }
});

console.log(
  `CHIS entry line: ${lineBytes} bytes; read file: ${((await stat(readPath)).size / 2 ** 20).toFixed(1)} MiB`,
);
console.table(rows);
console.log(`groupTrajectories over ${readRecords} entries: ${groupMs.toFixed(1)} ms`);
console.log(
  `continuity + drift + stability over ${trajectories.length} trajectories: ${dynamicsMs.toFixed(1)} ms`,
);
console.log(
  `heap growth: streaming ${readRecords} records ~${streamPeakMb.toFixed(1)} MiB (sampled peak), readJsonl holding them ${readAllMb.toFixed(1)} MiB${globalThis.gc ? '' : ' (run with --expose-gc for steadier figures)'}`,
);
await rm(directory, { recursive: true, force: true });
