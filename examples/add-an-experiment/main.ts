/**
 * `pnpm start`: adds the `x-modular-sum` experiment (modular-sum.ts, written here, outside the
 * monorepo's packages) to the pilot's registry, checks it with the experiment contract suite,
 * runs it alone through `runPilot` on two scripted responders (offline, free, no network), scores
 * its replies with its own key and verifies the release. Every number is a SCRIPTED BASELINE, not
 * a measurement of any model. Exits non-zero when a hand-derived expectation fails.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  checkExperimentContract,
  defaultOfflineSettings,
  finalResults,
  PILOT_EXPERIMENTS,
  runPilot,
} from '@chi/pilot';
import { verifyRelease } from '@chi/report';
import { modularSumExperiment, sumItems } from './modular-sum';
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

// 2. Run it alone through runPilot: the pilot's registry plus this module, `templates` selecting it.
const root = mkdtempSync(join(tmpdir(), 'chi-add-an-experiment-'));
try {
  const outcome = await runPilot({
    settings: defaultOfflineSettings({
      systems: RESPONDERS.map(responderSpec),
      replicates: 2,
      resamples: 50,
      templates: ['x-modular-sum'],
    }),
    experiments: [...PILOT_EXPERIMENTS, modularSumExperiment],
    models: new Map(RESPONDERS.map((responder) => [responder, responderModel(responder)])),
    runDir: join(root, 'run'),
    now: () => new Date('2026-09-01T00:00:00.000Z'),
  });
  expectEqual('exit code', outcome.exitCode, 0);

  // 3. Score with the module's own answer key: accuracy per responder over both worlds.
  const results = await finalResults(outcome.runDir);
  const accuracy = new Map<string, { correct: number; total: number }>();
  for (const [requestId, result] of results) {
    const [systemId = '', , worldText = ''] = requestId.split('.');
    const worldSeed = Number(worldText.slice(1));
    const key = new Map(sumItems(worldSeed, 6).map((item) => [item.id, item.answer]));
    const answers = JSON.parse(result.text ?? '[]') as { id: string; answer: unknown }[];
    const tally = accuracy.get(systemId) ?? { correct: 0, total: 0 };
    for (const [id, expected] of key) {
      const answer = answers.find((a) => a.id === id)?.answer;
      tally.total += 1;
      if (answer === expected) tally.correct += 1;
    }
    accuracy.set(systemId, tally);
  }
  console.log('SCRIPTED BASELINE — not a measurement of any model');
  // Hand-derived: `exact` answers all 12 items (2 worlds x 6); `off-by-one` misses q2, q4, q6.
  expectEqual('exact accuracy', accuracy.get('exact'), { correct: 12, total: 12 });
  expectEqual('off-by-one accuracy', accuracy.get('off-by-one'), { correct: 6, total: 12 });

  // 4. The release of the run verifies (its blocks and costs include the added experiment).
  const report = await verifyRelease(outcome.releaseDir ?? '');
  expectEqual('release mismatches', report.mismatches.length, 0);
} finally {
  rmSync(root, { recursive: true, force: true });
}

if (failures.length > 0) {
  console.error(`add-an-experiment: ${failures.length} expectation(s) failed`);
  process.exit(1);
}
