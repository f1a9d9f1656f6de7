/**
 * `pnpm start`: a benchmark author's own memory benchmark on the seeded CHI worlds. The worlds come
 * from `@chi/worlds` (own seed scheme, 4 probes per stratum instead of 8); the prompt wording and
 * the answer format are the author's (prompt.ts, answer-format.ts); scoring is `@chi/scoring`.
 * The responders are FIXTURE rules (fixture-clerks.ts), not models. The script prints the scores
 * and the failure taxonomy, then checks them against what the two rules must score; it exits
 * non-zero on any difference.
 */
import {
  capacityCurve,
  failureTaxonomy,
  type LoadScores,
  parseProbeReply,
  scoreMemoryProbes,
  traceMemoryProbes,
} from '@chi/scoring';
import type { FailureTaxonomy, MemoryProbeTrace, MemoryScore } from '@chi/spec';
import {
  asOfBranchCounts,
  blindView,
  deriveSeed,
  generateMemoryWorld,
  minimumMemoryLoad,
} from '@chi/worlds';
import { convertAnswerLines } from './answer-format';
import { CLERKS, type Clerk, clerkReply } from './fixture-clerks';
import { renderPrompt } from './prompt';

const ROOT_SEED = 777; // the author's study
const PROBES_PER_STRATUM = 4;
const LOADS = [minimumMemoryLoad(PROBES_PER_STRATUM), 64]; // 16 is the smallest load for 4 probes
const WORLDS = 2;

interface ClerkResults {
  readonly perLoad: Map<number, MemoryScore[]>;
  readonly traces: MemoryProbeTrace[];
  unreadableLines: number;
  replies: number;
}
const results = new Map<Clerk, ClerkResults>(
  CLERKS.map((clerk) => [
    clerk,
    { perLoad: new Map(), traces: [], unreadableLines: 0, replies: 0 },
  ]),
);
let examplePrompt = '';
let exampleReply = '';

for (let world = 0; world < WORLDS; world++) {
  // Any seed scheme works; one seed per world, reused across loads (the world is the unit).
  const seed = deriveSeed(ROOT_SEED, 'my-benchmark', 'world', world);
  for (const load of LOADS) {
    const generated = generateMemoryWorld({ seed, load, probesPerStratum: PROBES_PER_STRATUM });
    const prompt = renderPrompt(blindView(generated)); // the model sees no roles and no key
    const ids = generated.probes.map((probe) => probe.id);
    for (const clerk of CLERKS) {
      const reply = clerkReply(clerk, prompt); // <- your model call goes here
      const converted = convertAnswerLines(reply, ids);
      const parsed = parseProbeReply(converted.json, ids);
      const own = results.get(clerk) as ClerkResults;
      const scores = own.perLoad.get(load) ?? [];
      scores.push(scoreMemoryProbes(generated.answerKey, parsed));
      own.perLoad.set(load, scores);
      own.traces.push(...traceMemoryProbes(generated.records, generated.answerKey, parsed));
      own.unreadableLines += converted.unreadableLines.length;
      own.replies += 1;
      if (world === 0 && load === LOADS[0] && clerk === 'latest-wins') {
        examplePrompt = prompt;
        exampleReply = reply;
      }
    }
  }
}

const excerpt = (text: string, head: number): string =>
  `${text.split('\n').slice(0, head).join('\n')}\n  ...`;
console.log(
  'Evidence class: FIXTURE (both "clerks" are fixed rules reading the prompt text, not models)\n',
);
console.log(
  `The author's prompt (world 0, N=${LOADS[0]}), first lines:\n${excerpt(examplePrompt, 6)}`,
);
console.log(
  `A reply in the author's answer format (latest-wins clerk):\n${excerpt(exampleReply, 4)}\n`,
);

const fixed = (value: number): string => value.toFixed(3);
const taxonomies = new Map<Clerk, FailureTaxonomy>();
const curves = new Map<Clerk, ReturnType<typeof capacityCurve>>();
for (const [clerk, own] of results) {
  const perLoad: LoadScores[] = [...own.perLoad].map(([load, worlds]) => ({ load, worlds }));
  const curve = capacityCurve(perLoad);
  curves.set(clerk, curve);
  const taxonomy = failureTaxonomy(own.traces);
  taxonomies.set(clerk, taxonomy);
  console.log(
    `${clerk} clerk (FIXTURE), ${WORLDS} worlds, ${PROBES_PER_STRATUM} probes per stratum`,
  );
  console.log('  load     r      t      s      u      i    1-f    Q_M of mean factors');
  for (const point of curve) {
    const f = point.factors;
    console.log(
      `  ${String(point.load).padStart(4)}  ${[f.r, f.t, f.s, f.u, f.i, f.oneMinusF].map(fixed).join('  ')}   ${fixed(point.qualityScore)}`,
    );
  }
  const reasons = Object.entries(taxonomy.total)
    .filter(([, count]) => count > 0)
    .map(([reason, count]) => `${reason} ${count}`);
  console.log(`  why, over all ${taxonomy.probes} probes: ${reasons.join(', ')}`);
  console.log(
    `  lines the converter could not read: ${own.unreadableLines} in ${own.replies} replies\n`,
  );
}

// Self-check against what the two rules must score.
const failures: string[] = [];
function expectEqual<T>(actual: T, expected: T, what: string): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected))
    failures.push(`${what}: expected ${JSON.stringify(expected)}, found ${JSON.stringify(actual)}`);
}
const perfectFactors = { r: 1, t: 1, s: 1, u: 1, i: 1, oneMinusF: 1 };
for (const point of curves.get('careful') ?? []) {
  expectEqual(point.factors, perfectFactors, `careful clerk factors at N=${point.load}`);
  expectEqual(point.qualityScore, 1, `careful clerk Q_M at N=${point.load}`);
}
// Interference probes ask keys whose RANK 2 entry has a later RANK 1 entry: a latest-wins reader
// fails every one of them, so i = 0 and Q_M = 0 exactly (no epsilon floor). It also fails the
// as-of probes where authority beats recency after the cutoff (a quarter of t, see
// asOfBranchCounts), so t = 1 - authority_wins / P, while r, s, u and 1-f stay 1.
const authorityAsOf = asOfBranchCounts(PROBES_PER_STRATUM).authority_wins;
for (const point of curves.get('latest-wins') ?? []) {
  expectEqual(
    point.factors,
    { ...perfectFactors, t: 1 - authorityAsOf / PROBES_PER_STRATUM, i: 0 },
    `latest-wins clerk factors at N=${point.load}`,
  );
  expectEqual(point.qualityScore, 0, `latest-wins clerk Q_M at N=${point.load}`);
}
const interferenceProbes = WORLDS * LOADS.length * PROBES_PER_STRATUM;
expectEqual(
  taxonomies.get('latest-wins')?.byStratum.i?.authority_trap,
  interferenceProbes,
  'latest-wins authority traps',
);
expectEqual(
  taxonomies.get('latest-wins')?.byStratum.t?.authority_trap,
  WORLDS * LOADS.length * authorityAsOf,
  'latest-wins authority traps among as-of probes',
);
for (const [clerk, own] of results)
  expectEqual(own.unreadableLines, own.replies, `${clerk}: one prose line per reply`);

if (failures.length > 0) {
  console.error(`self-check FAILED:\n- ${failures.join('\n- ')}`);
  process.exitCode = 1;
} else {
  console.log('self-check passed: both FIXTURE clerks score exactly what their rules imply');
}
