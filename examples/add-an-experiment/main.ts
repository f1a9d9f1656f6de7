/**
 * `pnpm start`: adds the `x-modular-sum` experiment (modular-sum.ts, written here, outside the
 * monorepo's packages) to the pilot's registry, checks it with the experiment contract suite,
 * runs it alone through `runPilot` on two scripted responders (offline, free, no network) with its
 * scorer (modular-sum-scorer.ts), so its scores reach the release, and verifies the release;
 * then checks that the module's own prompt template was frozen into the run folder and that a
 * resume refuses an edited copy. Every number is a SCRIPTED BASELINE, not a measurement of any
 * model. Exits non-zero when a hand-derived expectation fails.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import {
  checkExperimentContract,
  defaultOfflineSettings,
  PILOT_EXPERIMENTS,
  runPilot,
} from '@chi/pilot';
import { BUILT_IN_SCORERS, verifyRelease } from '@chi/report';
import { sha256Hex } from '@chi/run';
import { RunFolderDamagedError } from '@chi/spec';
import { MODULAR_SUM_TEMPLATE, modularSumExperiment } from './modular-sum';
import { modularSumScorer } from './modular-sum-scorer';
import { RESPONDERS, responderModel, responderSpec, scriptedSumReply } from './scripted';

const failures: string[] = [];
function expectEqual(what: string, found: unknown, expected: unknown): void {
  const ok = JSON.stringify(found) === JSON.stringify(expected);
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}: ${JSON.stringify(found)}`);
  if (!ok) failures.push(`${what}: expected ${JSON.stringify(expected)}`);
}

// 1. The contract suite every registered experiment passes.
const contract = checkExperimentContract(modularSumExperiment, {
  reply: (_request, rendered) => scriptedSumReply('exact', rendered.messages.at(-1)?.content ?? ''),
});
expectEqual('contract problems', contract.problems, []);

// The scorers of the release: the toolkit's own and this module's.
const scorers = [...BUILT_IN_SCORERS, modularSumScorer];

// 2. Run it alone through runPilot: the pilot's registry plus this module, `templates` selecting it.
const root = mkdtempSync(join(tmpdir(), 'chi-add-an-experiment-'));
const runDir = join(root, 'run');
const experiments = [...PILOT_EXPERIMENTS, modularSumExperiment];
const models = new Map(RESPONDERS.map((responder) => [responder, responderModel(responder)]));
try {
  const outcome = await runPilot({
    settings: defaultOfflineSettings({
      systems: RESPONDERS.map(responderSpec),
      replicates: 2,
      resamples: 50,
      templates: ['x-modular-sum'],
    }),
    experiments,
    models,
    scorers,
    runDir,
    now: () => new Date('2026-09-01T00:00:00.000Z'),
  });
  expectEqual('exit code', outcome.exitCode, 0);

  // 3. The module's scorer put its scores into the release: world means with bootstrap intervals.
  const releaseDir = outcome.releaseDir ?? '';
  const table = JSON.parse(
    readFileSync(join(releaseDir, 'chart-data', 'x-modular-sum.json'), 'utf8'),
  ) as { estimates: { systemId: string; estimate: number | null; worlds: number }[] };
  const accuracy = (id: string) => table.estimates.find((e) => e.systemId === id);
  console.log('SCRIPTED BASELINE — not a measurement of any model');
  // Hand-derived: `exact` answers all 6 items of both worlds; `off-by-one` misses q2, q4, q6.
  expectEqual('exact accuracy', accuracy('exact')?.estimate, 1);
  expectEqual('off-by-one accuracy', accuracy('off-by-one')?.estimate, 0.5);
  expectEqual('worlds used', accuracy('exact')?.worlds, 2);
  // Its figure (estimates with intervals per system) is drawn from that chart data, and the report shows it.
  expectEqual(
    'figure drawn',
    existsSync(join(releaseDir, 'figures', 'experiment-x-modular-sum.svg')),
    true,
  );
  expectEqual(
    'figure in the report',
    readFileSync(join(releaseDir, 'report.md'), 'utf8').includes(
      'figures/experiment-x-modular-sum.svg',
    ),
    true,
  );

  // 4. The release verifies with the module's scorer; without it, its files are not recomputed.
  const report = await verifyRelease(releaseDir, { scorers });
  expectEqual('release mismatches', report.mismatches.length, 0);
  const withoutScorer = await verifyRelease(releaseDir);
  expectEqual(
    'without the scorer, its files are unexpected',
    withoutScorer.mismatches.some((m) => m.file === 'chart-data/x-modular-sum.json'),
    true,
  );

  // 5. The module's template is frozen into the run folder, byte for byte, with its hash in the
  // manifest; the module rendered from that copy, and a resume refuses an edited copy.
  const frozenFile = join(runDir, 'prompts', 'x-modular-sum@1.txt');
  expectEqual(
    'template frozen byte for byte',
    readFileSync(frozenFile, 'utf8') === MODULAR_SUM_TEMPLATE.text,
    true,
  );
  const manifest = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')) as {
    prompts: { name: string; version: string; sha256: string }[];
  };
  expectEqual(
    'template hash in manifest.prompts',
    manifest.prompts.find((p) => p.name === 'x-modular-sum')?.sha256,
    sha256Hex(MODULAR_SUM_TEMPLATE.text),
  );
  writeFileSync(frozenFile, readFileSync(frozenFile, 'utf8').replace('mod', 'modulo'));
  const refused = await runPilot({ resumeDir: runDir, experiments, models, release: false }).then(
    () => null,
    (error: unknown) => error,
  );
  expectEqual(
    'resume refuses the edited template, naming its file',
    RunFolderDamagedError.isInstance(refused) ? relative(root, refused.file) : String(refused),
    join('run', 'prompts', 'x-modular-sum@1.txt'),
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}

if (failures.length > 0) {
  console.error(`add-an-experiment: ${failures.length} expectation(s) failed`);
  process.exit(1);
}
