// Generation time of memory worlds at loads 256, 10,000 and 1,000,000 (records = 2.5 x load).
// Run with `pnpm --filter @chi/worlds bench`. Prints median and mean milliseconds per world and
// nanoseconds per record; linear growth shows as a roughly constant time per record. The issue's
// target: a 10,000-load world in under 50 ms.
import { Bench } from 'tinybench';
import { generateMemoryWorld } from '../src/index';

interface Plan {
  readonly load: number;
  readonly options: { time: number; iterations: number; warmupIterations: number };
}

const plans: readonly Plan[] = [
  { load: 256, options: { time: 1000, iterations: 50, warmupIterations: 20 } },
  { load: 10_000, options: { time: 2000, iterations: 30, warmupIterations: 10 } },
  { load: 1_000_000, options: { time: 0, iterations: 5, warmupIterations: 1 } },
];

const rows: Record<string, string | number>[] = [];
for (const plan of plans) {
  const records = generateMemoryWorld({ seed: 1, load: plan.load }).records.length;
  const bench = new Bench({ name: `load ${plan.load}`, ...plan.options, throws: true });
  let seed = 0;
  bench.add(`generateMemoryWorld load ${plan.load}`, () => {
    seed += 1;
    generateMemoryWorld({ seed, load: plan.load });
  });
  await bench.run();
  const result = bench.tasks[0]?.result;
  if (result === undefined || !('latency' in result))
    throw new Error(`no result for load ${plan.load}`);
  const { latency } = result;
  rows.push({
    load: plan.load,
    records,
    samples: latency.samplesCount,
    'median ms': Number(latency.p50.toFixed(2)),
    'mean ms': Number(latency.mean.toFixed(2)),
    'min ms': Number(latency.min.toFixed(2)),
    'ns per record (median)': Math.round((latency.p50 * 1e6) / records),
    // The fastest run is the least disturbed by other processes and by garbage collection.
    'ns per record (min)': Math.round((latency.min * 1e6) / records),
  });
}
console.table(rows);
const tenThousand = rows.find((row) => row.load === 10_000);
console.log(`10,000-load world: median ${String(tenThousand?.['median ms'])} ms (target < 50 ms)`);
