/**
 * Benchmark of the scoring hot paths, run with `pnpm --filter @chi/scoring bench`
 * (`tsx bench/scoring.bench.ts`). Inputs are synthetic fixtures built here (labelled as such), not
 * model output. tinybench reports the mean and the relative margin of error per task.
 */
import type { AnswerKeyEntry, Stratum } from '@chi/spec';
import { Bench } from 'tinybench';
import {
  eimcFromScores,
  parseProbeReply,
  scoreMemoryProbes,
  traceMemoryProbes,
} from '../src/index';
import { qualityScoreOf } from '../src/quality-score';

const STRATA: Stratum[] = ['r', 't', 's', 'u', 'i', 'f'];
const hex = (n: number) => (n >>> 0).toString(16).padStart(8, '0');

// A pilot-shaped probe set: 6 strata x 8 probes, one record per non-lure key.
const records = Array.from({ length: 40 }, (_, k) => ({
  key: `key-${k}`,
  value: hex(0x1000 + k),
  source: `ledger-${k}`,
  eventTime: '2026-01-01T00:00:00.000Z',
  authority: 1 as const,
}));
const answerKey: AnswerKeyEntry[] = STRATA.flatMap((stratum, s) =>
  Array.from({ length: 8 }, (_, k) => {
    const n = s * 8 + k;
    const lure = stratum === 'f';
    return {
      id: `probe-${hex(n * 2654435761)}`,
      stratum,
      key: lure ? `absent-${k}` : `key-${n}`,
      asOf: null,
      expectedValue: lure ? null : hex(0x1000 + n),
      expectedSource: lure ? null : `ledger-${n}`,
    };
  }),
);
const ids = answerKey.map((entry) => entry.id);
const answers = answerKey.map((entry, k) =>
  entry.expectedValue === null || k % 5 === 0
    ? { id: entry.id, value: null, source: null }
    : { id: entry.id, value: entry.expectedValue, source: entry.expectedSource },
);
const typicalReply = `Here are my answers.\n\`\`\`json\n${JSON.stringify(answers, null, 2)}\n\`\`\`\n`;
const proseReply = `${'The notebook mentions {keys} and "sources" [often]. '.repeat(20_000)}\n${JSON.stringify(answers)}`;
const hostileReply = ',["'.repeat(350_000);
const parsed = parseProbeReply(typicalReply, ids);

const loads = Float64Array.from([32, 64, 128, 256]);
const scores = Float64Array.from([0.93, 0.86, 0.79, 0.81]);

const bench = new Bench({ time: 500 });
bench
  .add(`parseProbeReply: 48-probe fenced reply (${typicalReply.length} chars)`, () => {
    parseProbeReply(typicalReply, ids);
  })
  .add(
    `parseProbeReply: ${(proseReply.length / 2 ** 20).toFixed(2)} Mi chars of prose + answer`,
    () => {
      parseProbeReply(proseReply, ids);
    },
  )
  .add(
    `parseProbeReply: ${(hostileReply.length / 2 ** 20).toFixed(2)} Mi chars hostile (budget-stopped)`,
    () => {
      parseProbeReply(hostileReply, ids);
    },
  )
  .add('scoreMemoryProbes: 48 probes', () => {
    scoreMemoryProbes(answerKey, parsed);
  })
  .add('traceMemoryProbes: 48 probes, 40 records', () => {
    traceMemoryProbes(records, answerKey, parsed);
  })
  .add('qualityScoreOf kernel', () => {
    qualityScoreOf(0.9, 0.8, 0.85, 0.95, 0.7, 0.875);
  })
  .add('eimcFromScores kernel, 4 loads', () => {
    eimcFromScores(loads, scores, 0.8);
  });

await bench.run();
console.log('Synthetic fixture inputs (not model output).');
console.table(bench.table());
