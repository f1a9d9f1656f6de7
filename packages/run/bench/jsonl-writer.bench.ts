/**
 * Append throughput of the durable JSONL writer, run with `pnpm --filter @chi/run bench`
 * (`tsx bench/jsonl-writer.bench.ts`). Plain `performance.now()` around whole workloads; each
 * workload runs three times after a warm-up and the median is reported. Records are realistic CHIS
 * entries from the synthetic generator (about 500 bytes per line). The temporary files live in the
 * OS temp directory, so fsync figures depend on the disk behind it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSyntheticTrajectories } from '@chi/chis';
import { type ChisEntry, ChisEntrySchema } from '@chi/spec';
import { createJsonlWriter, type FsyncPolicy } from '../src/index';

const directory = await mkdtemp(join(tmpdir(), 'jsonl-writer-bench-'));
let fileCounter = 0;

function syntheticEntries(count: number): ChisEntry[] {
  const { entries } = generateSyntheticTrajectories({
    seed: 1,
    replicates: Math.ceil(count / 49),
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
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function timed(run: () => Promise<unknown>, repetitions = 3): Promise<number> {
  await run();
  const samples: number[] = [];
  for (let i = 0; i < repetitions; i++) {
    const start = performance.now();
    await run();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

async function appendWorkload(entries: ChisEntry[], fsync: FsyncPolicy, concurrency: number) {
  const path = join(directory, `append-${fileCounter++}.jsonl`);
  const writer = await createJsonlWriter({ path, schema: ChisEntrySchema, fsync });
  let next = 0;
  const worker = async () => {
    for (let entry = entries[next++]; entry !== undefined; entry = entries[next++])
      await writer.append(entry);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  await writer.close();
  await rm(path);
}

const rows: { workload: string; records: number; medianMs: string; perSecond: string }[] = [];
async function report(workload: string, records: number, run: () => Promise<unknown>) {
  const ms = await timed(run);
  rows.push({
    workload,
    records,
    medianMs: ms.toFixed(1),
    perSecond: Math.round((records / ms) * 1000).toLocaleString('en-US'),
  });
}

const small = syntheticEntries(300);
const large = syntheticEntries(20_000);
await report("append, fsync 'every-line', one caller awaiting each", small.length, () =>
  appendWorkload(small, 'every-line', 1),
);
await report("append, fsync 'every-line', 16 concurrent callers", 2_000, () =>
  appendWorkload(large.slice(0, 2_000), 'every-line', 16),
);
await report("append, fsync 'on-flush', one caller awaiting each", large.length, () =>
  appendWorkload(large, 'on-flush', 1),
);
await report("append, fsync 'on-flush', burst (all appends at once)", large.length, () =>
  appendWorkload(large, 'on-flush', large.length),
);
console.table(rows);
await rm(directory, { recursive: true, force: true });
