/**
 * Offline pilot runs made once per vitest run and copied into each test file that reads them.
 * `@chi/pilot` depends on this package, so it is imported only through the workspace test alias.
 */
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { createScriptedModel, defaultOfflineSettings, runPilot } from '@chi/pilot';
import { sharedFolder } from '../../../tooling/vitest/shared-folder';
import { fixedClock } from './fixed-clock';

/** The offline pilots several report test files read (each made once per vitest run). */
export const SHARED_PILOT_RUNS = {
  /**
   * 2 worlds, loads 32 and 64, 200 resamples, one request in flight, the clock of
   * {@link fixedClock} from 2026-09-01: pilot-release.test.ts (its golden) and view.browser.test.ts.
   */
  twoWorlds: { replicates: 2, loads: [32, 64], resamples: 200, concurrency: 1 },
} as const;

/** The options of one shared run. */
type SharedPilotOptions = (typeof SHARED_PILOT_RUNS)[keyof typeof SHARED_PILOT_RUNS];

/**
 * Copies the shared offline pilot run `options` (one of {@link SHARED_PILOT_RUNS}) into `runDir`,
 * making it first if no file of this vitest run has. The copy is the test's own: a release written
 * from it hard-links the copy's files, never the shared run's. Without a release, as `runPilot`
 * with `release: false` leaves it.
 */
export async function copySharedPilotRun(
  options: SharedPilotOptions,
  runDir: string,
): Promise<void> {
  const shared = await sharedFolder(`runPilot ${JSON.stringify(options)}`, async (folder) => {
    const { concurrency, ...rest } = options;
    const now = fixedClock('2026-09-01T00:00:00.000Z');
    const settings = defaultOfflineSettings(rest);
    const models = new Map(settings.systems.map((s) => [s.id, createScriptedModel(s.id, { now })]));
    const outcome = await runPilot({
      settings,
      runDir: join(folder, 'run'),
      models,
      concurrency,
      release: false,
      now,
    });
    if (outcome.exitCode !== 0)
      throw new Error(`the shared offline pilot ${JSON.stringify(options)} exited ${outcome.exitCode}`);
  });
  await cp(join(shared, 'run'), runDir, { recursive: true });
}
