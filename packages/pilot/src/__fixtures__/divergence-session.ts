import { divergenceSettings, runDivergenceSession } from '../divergence/run';
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
  evidence: 'scripted_baseline' | 'live_model' = 'scripted_baseline',
): Promise<string> {
  // `live_model`: the served system registered as a live (possibly paid) model, whose request
  // left open by a kill is never sent again.
  const system = openAiCompatibleSystemSpec({
    model: 'scripted/notebook-follower',
    baseUrl,
    evidenceClass: evidence,
    apiKeyEnv: null,
  });
  const session = await runDivergenceSession({
    runDir,
    ...(mode === 'new'
      ? { settings: divergenceSettings(1, { systems: [system], resamples: 20, ceilingUsd: 1 }) }
      : {}),
    env: {},
    // One request in flight: the held one is then the only open request when the test kills.
    concurrency: 1,
    now: () => AT,
    elapsedMs: () => 0,
  });
  if (session.releaseDir === null) throw new Error('the run stopped before every request ended');
  return session.releaseDir;
}
