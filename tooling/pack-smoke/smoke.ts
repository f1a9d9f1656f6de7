// The typed twin of smoke.mjs for the packaging proof (scripts/pack-check.mjs): the same calls,
// checked by `tsc --noEmit` (strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess,
// skipLibCheck off) against the declarations shipped in the tarballs, with the public types
// spelled out so a renamed or missing type export fails too. Keep it in step with smoke.mjs.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChartDataSchema, type RunChartData, runChartData } from '@chi/analysis';
import { sampleChartDataFile } from '@chi/analysis/test';
import { continuity, generateSyntheticTrajectories } from '@chi/chis';
import { continuity as pureContinuity } from '@chi/chis/pure';
import { extractJsonBlock, renderJsonBlock } from '@chi/experiment';
import { BUILT_IN_EXPERIMENTS } from '@chi/experiments';
import { buildFigures, renderFigureSvg } from '@chi/figures';
import { createMemoryLedger, reservationUsd } from '@chi/openrouter';
import {
  createScriptedModel,
  defaultOfflineSettings,
  loadPromptTemplates,
  renderSmoke,
  runPilot,
  scriptedSystemSpec,
} from '@chi/pilot';
import {
  checkSha256Sums,
  formatSha256Sums,
  parseSha256Sums,
  verifyRelease,
  writeSha256Sums,
} from '@chi/report';
import { canonicalJson, parseRunJsonl, sha256Hex } from '@chi/run';
import {
  capacityCurve,
  chi,
  eimc,
  NO_CALIBRATION_REASON,
  parseProbeReply,
  qualityScore,
  scoreMemoryProbes,
} from '@chi/scoring';
import {
  type BudgetLedger,
  type ChatModel,
  type ChiResult,
  type EimcResult,
  InvalidArgumentError,
  type MemoryScore,
  type MemoryWorld,
  MemoryWorldSchema,
  parseWith,
} from '@chi/spec';
import { checkChatModelContract } from '@chi/spec/test';
import { type BootstrapEstimate, clusterBootstrap, meanOverClusters } from '@chi/stats';
import { deriveSeed, generateMemoryWorld } from '@chi/worlds';
import { z } from 'zod';

function check(condition: boolean, what: string): asserts condition {
  if (!condition) throw new Error(`pack smoke: ${what}`);
}
function equal<T>(actual: T, expected: T, what: string): void {
  if (actual !== expected) {
    throw new Error(
      `pack smoke: ${what}: expected ${JSON.stringify(expected)}, found ${JSON.stringify(actual)}`,
    );
  }
}
function near(actual: number | null, expected: number, what: string): void {
  check(
    typeof actual === 'number' && Math.abs(actual - expected) < 1e-12,
    `${what}: expected ${expected}, found ${actual}`,
  );
}

// @chi/worlds: the documented seed derivation and a world of load 32.
equal(deriveSeed(20260901, 'world', 17), 2914897414, 'deriveSeed(20260901, "world", 17)');
const seed = deriveSeed(20260901, 'world', 0);
const world: MemoryWorld = generateMemoryWorld({ seed, load: 32 });
equal(world.records.length, 32 + 32 + 8 + 8, 'records of a load-32 world');
equal(world.probes.length, 48, 'probes of a load-32 world');

// @chi/spec: the world matches its schema; bad input is a typed error found across copies.
parseWith(MemoryWorldSchema, world, 'memory world');
let rejected = false;
try {
  generateMemoryWorld({ seed, load: 8 });
} catch (error) {
  rejected = InvalidArgumentError.isInstance(error);
}
check(rejected, 'a load below the minimum throws InvalidArgumentError');
const require = createRequire(import.meta.url);
const schemaText: string = readFileSync(
  require.resolve('@chi/spec/schemas/memory-world.schema.json'),
  'utf8',
);
check(
  (JSON.parse(schemaText) as { $schema?: unknown }).$schema !== undefined,
  'the shipped JSON Schema of a memory world',
);

// @chi/scoring: a reply that answers every probe from the key scores 1; one that abstains on
// everything passes only the lures, so Q_M is 0 (no epsilon floor).
const ids = world.probes.map((probe) => probe.id);
const perfectReply = JSON.stringify(
  world.answerKey.map((entry) => ({
    id: entry.id,
    value: entry.expectedValue,
    source: entry.expectedSource,
  })),
);
const perfect: MemoryScore = scoreMemoryProbes(world.answerKey, parseProbeReply(perfectReply, ids));
equal(perfect.qualityScore, 1, 'Q_M of a reply equal to the answer key');
const abstainReply = JSON.stringify(ids.map((id) => ({ id, value: null, source: null })));
const abstainer = scoreMemoryProbes(world.answerKey, parseProbeReply(abstainReply, ids));
equal(abstainer.qualityScore, 0, 'Q_M of an all-abstaining reply');
equal(abstainer.lures.correctAbstention, 8, 'lures passed by an all-abstaining reply');
equal(abstainer.lures.f.rate, 0, 'lure failure rate f of an all-abstaining reply');
equal(qualityScore(perfect.factors), 1, 'qualityScore(factors)');
const curve = capacityCurve([{ load: 32, worlds: [perfect, perfect] }]);
const capacity: EimcResult = eimc(curve, 0.8);
equal(capacity.status, 'lower_bound', 'EIMC status when the largest tested load passes');
equal(capacity.value, 32, 'EIMC value');
const nothingPasses = eimc(capacityCurve([{ load: 32, worlds: [abstainer] }]), 0.8);
equal(nothingPasses.status, 'no_passing_load', 'EIMC status when no load passes');
equal(nothingPasses.value, null, 'EIMC value when no load passes (null, never 0)');
const noCalibration: ChiResult = chi({ axes: { M: { recall: 0.9 } } }, null);
equal(noCalibration.value, null, 'CHI without a human calibration');
equal(noCalibration.reason, NO_CALIBRATION_REASON, 'reason of a null CHI');

// @chi/stats: a cluster bootstrap with the exact point estimate, deterministic for its seed.
interface World {
  readonly r: number;
}
const clusters: World[] = [{ r: 1 }, { r: 0.5 }, { r: 0.75 }, { r: 0.25 }];
const bootstrapOptions = {
  clusters,
  seed: 20260902,
  resamples: 200,
  statistic: (sample: readonly World[]): number => meanOverClusters(sample, (cluster) => cluster.r),
};
const interval: BootstrapEstimate = clusterBootstrap(bootstrapOptions);
equal(interval.estimate, 0.625, 'bootstrap point estimate');
check(
  interval.interval !== null &&
    interval.interval.lower >= 0.25 &&
    interval.interval.upper <= 1 &&
    interval.interval.lower <= interval.interval.upper,
  `bootstrap interval inside the data range, found ${JSON.stringify(interval.interval)}`,
);
equal(
  JSON.stringify(clusterBootstrap(bootstrapOptions)),
  JSON.stringify(interval),
  'the same seed gives the same bootstrap',
);
equal(
  clusterBootstrap({ ...bootstrapOptions, clusters: [{ r: 1 }] }).intervalOmittedReason,
  'fewer_than_two_clusters',
  'no interval from one world',
);

// @chi/openrouter: the reservation formula and a ledger that refuses to cross its ceiling.
const price = { inputUsdPerToken: 1e-6, outputUsdPerToken: 4e-6, requestUsd: 0 };
near(
  reservationUsd({ inputBytes: 1000, maxOutputTokens: 100, safetyPrice: price, marginRatio: 0.25 }),
  (1000 * 1e-6 + 100 * 4e-6) * 1.25,
  'reservationUsd',
);
const ledger: BudgetLedger = createMemoryLedger({ ceilingUsd: 1 });
const first = await ledger.reserve({ attemptId: 'a1', amountUsd: 0.6 });
if (!first.ok)
  throw new Error(`pack smoke: a reservation under the ceiling is refused: ${first.reason}`);
const settled = await ledger.settle(first.reservationId, {
  chargedUsd: 0.25,
  source: 'usage.cost',
});
equal(settled.overcharged, false, 'a charge under its reservation is no overcharge');
const second = await ledger.reserve({ attemptId: 'a2', amountUsd: 0.8 });
equal(second.ok, false, 'a reservation that would cross the ceiling is refused');
const ledgerState = await ledger.state();
near(ledgerState.settledUsd, 0.25, 'settled USD');
check(ledgerState.committedUsd <= ledgerState.ceilingUsd, 'committed stays within the ceiling');

// @chi/experiments: the registry lists the built-in folders, each module with its own scorer.
equal(
  BUILT_IN_EXPERIMENTS.map(
    (builtIn) => `${builtIn.experiment.id}=${builtIn.scorer.experimentId}`,
  ).join(','),
  'memory=memory,history=history,behavior=behavior,goal-persistence=goal-persistence,feedback-valence=feedback-valence',
  'built-in registry',
);
// @chi/experiment: the JSON-block codec round-trips; @chi/run: a final line without newline is a
// torn write.
equal(
  JSON.stringify(
    extractJsonBlock(`intro\n${renderJsonBlock('QUESTIONS', [{ id: 'q1' }])}\n`, 'QUESTIONS'),
  ),
  '[{"id":"q1"}]',
  'JSON block round trip',
);
const jsonl = parseRunJsonl('{"a":1}\n{"a":2}', z.object({ a: z.number() }), 'x.jsonl');
equal(jsonl.records.length, 1, 'records before a torn unterminated line');

// @chi/chis: a noise-free synthetic trajectory returns its analytic continuity, from both entries.
const synthetic = generateSyntheticTrajectories({
  seed: 7,
  baseline: 0.3,
  driftRate: 0.01,
  interventionEffect: 0.2,
  noise: 0,
  fault: { at: 3, size: 0.3, recoveryFraction: 0.75 },
  pathDependence: 0.1,
});
const controlId = synthetic.replicates[0]?.trajectoryIds.control;
const control = synthetic.entries.filter((entry) => entry.trajectoryId === controlId);
near(continuity(control).value, synthetic.groundTruth.expected.continuity, 'CHIS continuity');
near(pureContinuity(control).value, synthetic.groundTruth.expected.continuity, 'continuity (pure)');
check(
  synthetic.entries.every((entry) => entry.evidenceClass === 'synthetic'),
  'synthetic entries are labelled synthetic',
);

// @chi/analysis: the synthetic sample chart data of its /test entry passes the chart-data schema.
// @chi/figures: the first figure of that chart data renders to SVG through vega.
// chart-data.json's layout, parsed by its schema, then keyed by experiment for the figures
const chartData: RunChartData = runChartData(ChartDataSchema.parse(sampleChartDataFile()));
const firstFigure = buildFigures(chartData)[0];
check(firstFigure !== undefined, 'buildFigures gives figures for the sample chart data');
check((await renderFigureSvg(firstFigure)).startsWith('<svg'), 'renderFigureSvg gives SVG text');

// @chi/report: RFC 8785 canonical JSON and SHA256SUMS written, parsed and checked.
equal(canonicalJson({ b: 1, a: [true, null] }), '{"a":[true,null],"b":1}', 'canonicalJson');
equal(
  sha256Hex(''),
  'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  'sha256Hex of the empty string',
);
const sums = formatSha256Sums([{ path: 'a.txt', sha256: sha256Hex('a\n') }]);
equal(parseSha256Sums(sums)[0]?.path, 'a.txt', 'SHA256SUMS round trip');

const scratch = mkdtempSync(join(tmpdir(), 'chi-pack-smoke-'));
try {
  const tree = join(scratch, 'tree');
  mkdirSync(join(tree, 'sub'), { recursive: true });
  writeFileSync(join(tree, 'sub', 'x.json'), canonicalJson({ x: 1 }));
  await writeSha256Sums(tree);
  equal((await checkSha256Sums(tree)).length, 0, 'problems of a freshly written SHA256SUMS');
  writeFileSync(join(tree, 'sub', 'x.json'), '{"x":2}');
  equal((await checkSha256Sums(tree))[0]?.kind, 'mismatch', 'a changed file is a mismatch');

  // @chi/pilot: a scripted system meets the ChatModel contract on the pilot's smoke prompt (read
  // from the prompt templates shipped in the package), and a tiny offline pilot runs end to end
  // through the library API, writes a release, and that release verifies.
  const scripted: ChatModel = createScriptedModel('perfect');
  const smokeRequest = renderSmoke(loadPromptTemplates(), { nonce: '0123456789abcdef' });
  const problems: string[] = await checkChatModelContract(scripted, {
    request: { messages: smokeRequest.messages },
  });
  equal(problems.join('; '), '', 'ChatModel contract problems of a scripted system');
  const outcome = await runPilot({
    settings: defaultOfflineSettings({
      systems: [scriptedSystemSpec('perfect'), scriptedSystemSpec('latest-wins')],
      replicates: 2,
      loads: [32],
      controlsAtLoad: null,
      resamples: 50,
    }),
    runsRoot: join(scratch, 'runs'),
    now: () => new Date('2026-09-01T08:00:00.000Z'),
  });
  equal(outcome.exitCode, 0, 'exit code of a complete offline pilot');
  equal(outcome.execution.incompleteBlocks, 0, 'incomplete blocks of an offline pilot');
  check(
    outcome.releaseDir !== null && existsSync(join(outcome.releaseDir, 'SHA256SUMS')),
    'release written',
  );
  const verified = await verifyRelease(outcome.releaseDir);
  check(verified.ok, `the release verifies: ${JSON.stringify(verified.mismatches.slice(0, 3))}`);
  const chartData: unknown = JSON.parse(
    readFileSync(join(outcome.releaseDir, 'chart-data', 'chart-data.json'), 'utf8'),
  );
  check(
    JSON.stringify(chartData).includes('scripted_baseline'),
    'the release labels scripted systems scripted_baseline',
  );

  // The `chi` executable is installed and answers --help.
  const help = execFileSync(join('node_modules', '.bin', 'chi'), ['--help'], { encoding: 'utf8' });
  check(help.includes('chi pilot'), 'chi --help prints the usage');
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

// Every entry of every @chi package this project installed (its package.json's dependencies),
// imported by its public specifier: the calls above reach most entries, this reaches the rest
// (`/internal`, `/test`, `@chi/experiment`, the report's `/inspect` and `/viewer`, `/palette`)
// under each Node version pack-check runs this program with. An entry added to a package is
// imported here without editing this file. Pattern subpaths (`./schemas/*`) are files, read above.
const installed = JSON.parse(readFileSync('package.json', 'utf8')) as {
  dependencies: Record<string, string>;
};
const chiPackages = Object.keys(installed.dependencies).filter((name) => name.startsWith('@chi/'));
let entries = 0;
for (const name of chiPackages) {
  const manifest = JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8')) as {
    exports: Record<string, unknown>;
  };
  for (const subpath of Object.keys(manifest.exports)) {
    if (subpath === './package.json' || subpath.includes('*')) continue;
    const specifier = subpath === '.' ? name : `${name}${subpath.slice(1)}`;
    const namespace = (await import(specifier)) as Record<string, unknown>;
    check(Object.keys(namespace).length > 0, `${specifier} exports something`);
    entries += 1;
  }
}
console.log(
  `pack smoke (TypeScript): every entry of the ${chiPackages.length} packages imports (${entries} entries)`,
);
console.log('pack smoke (TypeScript): 11 packages import by name and behave as documented');
