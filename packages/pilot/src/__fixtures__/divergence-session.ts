import { fileURLToPath } from 'node:url';
import { writeDivergenceRelease } from '../divergence/release';
import {
  createDivergenceRun,
  defaultDivergenceManifest,
  executeDivergenceSession,
  finishDivergenceRun,
} from '../divergence/run';
import { loadPromptTemplates } from '../prompts';
import { openAiCompatibleSystemSpec } from '../settings';

/** The fixed clock of every session: the published bytes do not depend on when a run ran. */
const AT = new Date('2026-09-01T00:00:00.000Z');

/**
 * One session of a live divergence run against `baseUrl` (the loopback divergence endpoint):
 * `new` freezes the manifest (one world, the served scripted system as an OpenAI-compatible
 * endpoint, ceiling 1 USD, smoke required) and runs; `resume` continues the run folder. Both write
 * the release when every instance has ended. The transport's clock is fixed, so an uninterrupted
 * run and a killed-and-resumed one can be compared byte for byte.
 */
export async function divergenceSession(
  runDir: string,
  baseUrl: string,
  mode: 'new' | 'resume',
): Promise<string> {
  if (mode === 'new') {
    const system = openAiCompatibleSystemSpec({
      model: 'scripted/notebook-follower',
      baseUrl,
      evidenceClass: 'scripted_baseline',
      apiKeyEnv: null,
    });
    const manifest = defaultDivergenceManifest(1, AT.toISOString(), loadPromptTemplates(), 20, {
      systems: [system],
      live: { ceilingUsd: 1 },
    });
    await createDivergenceRun(runDir, manifest);
  }
  await executeDivergenceSession({ runDir, env: {}, now: () => AT, elapsedMs: () => 0 });
  const { analysis } = await finishDivergenceRun(runDir);
  return writeDivergenceRelease(runDir, analysis);
}

// As a child process: `tsx divergence-session.ts RUN_DIR BASE_URL new|resume` (the test kills it).
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [runDir, baseUrl, mode] = process.argv.slice(2);
  divergenceSession(runDir as string, baseUrl as string, mode === 'resume' ? 'resume' : 'new').then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`${String(error)}\n`);
      process.exit(1);
    },
  );
}
