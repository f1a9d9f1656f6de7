import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  DIVERGENCE_PROTOCOL_ID,
  divergenceManifestOf,
  divergenceRequestsPerWorld,
} from '@chi/experiments/internal';
import type { ReleaseKind } from '@chi/report';
import { RUN_FILE_NAME } from '@chi/run/internal';
import { InvalidArgumentError, type ModelCatalog, type SystemSpec } from '@chi/spec';
import { createProgressRenderer } from '../cli/progress';
import { interruptedResumeHint } from '../cli/resume-hint';
import { registeredPromptTemplates } from '../experiments/declared-templates';
import { DEFAULT_RUNS_ROOT, planRun } from '../run-folder/run-create';
import { divergencePlanCost, formatDivergencePlan } from './plan-cost';
import { divergenceReleaseKind } from './release';
import type { DivergenceRecomputation } from './release-evidence';
import {
  DIVERGENCE_REGISTRY,
  type DivergenceSessionOutcome,
  divergencePaths,
  divergenceSettings,
  recomputeDivergence,
  releaseInputOf,
  runDivergenceSession,
} from './run';

/** Output of the divergence commands (the CLI's stdout and stderr) and what live runs read. */
export interface DivergenceCommandIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  readonly cwd?: string;
  /** API keys by variable name (never written anywhere). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Injectable fetch of the live transports (tests). */
  readonly fetch?: typeof globalThis.fetch;
  /**
   * The CLI's stop signal (`installStopSignals`): aborted, the session sends no new request and
   * lets the requests in flight settle, exactly as the default pilot (`executeRun`'s signal).
   */
  readonly signal?: AbortSignal;
}

/** Options of `chi pilot --protocol divergence-v0.1`. */
export interface DivergenceCommandOptions {
  readonly protocol: string;
  readonly plan: boolean;
  readonly out: string | null;
  /** Worlds (`--replicates`); default 8. */
  readonly replicates: number | null;
  readonly resamples: number | null;
  /** `--seed`: root seed of the world seeds (default the pilot's); frozen in the manifest. */
  readonly seed?: number | null;
  /**
   * The systems, chosen exactly as the default pilot chooses them (`--live --models`, `--base-url
   * --models`, declared prices); null: the three scripted divergence baselines, offline.
   */
  readonly systems?: readonly SystemSpec[] | null;
  /** Catalog prices of OpenRouter systems (fetched before the manifest is frozen). */
  readonly catalog?: ModelCatalog;
  /** `--ceiling-usd`: required for live systems (the CLI checks it). */
  readonly ceilingUsd?: number | null;
  readonly smokeCeilingUsd?: number;
  readonly allowFailedSmoke?: boolean;
  /** `--concurrency`: requests in flight at once (default the manifest's). */
  readonly concurrency?: number | null;
}

/** Default number of worlds of the divergence protocol. */
export const DIVERGENCE_DEFAULT_WORLDS = 8;

/** Checks the protocol name (`chi pilot --protocol NAME`). */
export function assertDivergenceProtocol(name: string): void {
  if (name !== DIVERGENCE_PROTOCOL_ID)
    throw new InvalidArgumentError(
      'protocol',
      `expected ${DIVERGENCE_PROTOCOL_ID} (the only protocol besides the default pilot), found ${JSON.stringify(name)}`,
    );
}

function settingsOf(options: DivergenceCommandOptions) {
  const systems = options.systems ?? null;
  return divergenceSettings(options.replicates ?? DIVERGENCE_DEFAULT_WORLDS, {
    ...(options.resamples === null ? {} : { resamples: options.resamples }),
    ...(options.seed == null ? {} : { rootSeed: options.seed }),
    ...(systems === null ? {} : { systems, ceilingUsd: options.ceilingUsd ?? 0 }),
    ...(options.concurrency == null ? {} : { concurrency: options.concurrency }),
  });
}

/**
 * `chi pilot --protocol divergence-v0.1 [--plan] [--out DIR] [--replicates N] [--resamples N] [--seed N]
 * [--live --models M,... | --base-url URL --models M,...] [--ceiling-usd X]`: runs the divergence
 * protocol with the scripted reference systems (offline) or with the chosen live systems under the
 * ledger's ceiling, after their smoke checks, and writes the run folder and its release; `--plan`
 * prints the request count and worst-case cost and sends nothing. Resolves to the exit code: 0, or
 * 3 when an instance was left incomplete (excluded from the release, with the reason).
 *
 * @throws `SmokeCheckFailedError` (exit 4) when a required smoke check failed
 */
export async function divergencePilotCommand(
  options: DivergenceCommandOptions,
  io: DivergenceCommandIo,
): Promise<number> {
  assertDivergenceProtocol(options.protocol);
  const settings = settingsOf(options);
  if (options.plan) {
    const manifest = divergenceManifestOf(
      planRun({ settings, experiments: DIVERGENCE_REGISTRY }).frozen.manifest,
    );
    io.stdout.write(
      formatDivergencePlan(
        manifest,
        divergencePlanCost(manifest, registeredPromptTemplates(), options.catalog),
        options.ceilingUsd ?? null,
      ),
    );
    return 0;
  }
  const cwd = io.cwd ?? process.cwd();
  const runDir =
    options.out === null
      ? resolve(
          cwd,
          DEFAULT_RUNS_ROOT,
          `divergence-${new Date().toISOString().replaceAll(':', '-')}`,
        )
      : resolve(cwd, options.out);
  if (existsSync(divergencePaths(runDir).manifest))
    throw new InvalidArgumentError(
      'out',
      `${runDir} already holds a run (${RUN_FILE_NAME.manifest}): resume it with chi pilot --resume ${runDir}, or choose a new --out`,
    );
  const live = settings.systems.some((system) => system.kind !== 'scripted');
  const perWorld = divergenceRequestsPerWorld();
  io.stderr.write(
    `chi: divergence protocol ${DIVERGENCE_PROTOCOL_ID}, ${settings.replicates} world(s), ${
      live
        ? `${settings.systems.length} system(s), ${perWorld * settings.replicates * settings.systems.length} requests, ceiling ${settings.ceilingUsd} USD`
        : 'scripted baselines (not models), offline'
    }\n`,
  );
  return reportSession(
    await runDivergenceSession({
      runDir,
      settings,
      ...sessionOptions(options, io),
      ...(options.catalog === undefined ? {} : { catalog: options.catalog }),
    }),
    io,
    options.concurrency ?? null,
  );
}

/** What a session of the command reads from its options and the CLI. */
function sessionOptions(
  options: {
    readonly allowFailedSmoke?: boolean;
    readonly smokeCeilingUsd?: number;
    readonly concurrency?: number | null;
  },
  io: DivergenceCommandIo,
) {
  return {
    // the default pilot's progress: the run folder line, request counts, scoring steps
    onEvent: createProgressRenderer(io.stderr),
    ...(io.env === undefined ? {} : { env: io.env }),
    ...(io.fetch === undefined ? {} : { fetch: io.fetch }),
    ...(io.signal === undefined ? {} : { signal: io.signal }),
    ...(options.smokeCeilingUsd === undefined ? {} : { smokeCeilingUsd: options.smokeCeilingUsd }),
    ...(options.allowFailedSmoke === undefined
      ? {}
      : { allowFailedSmoke: options.allowFailedSmoke }),
    ...(options.concurrency == null ? {} : { concurrency: options.concurrency }),
  };
}

/**
 * `chi pilot --resume DIR` for a divergence run folder: the calls already logged are not sent
 * again, a request a killed session left open is re-sent (scripted) or abandoned (paid), and the
 * release is written once every instance has ended. Resolves to the exit code.
 */
export async function resumeDivergenceCommand(
  runDir: string,
  options: {
    readonly allowFailedSmoke?: boolean;
    readonly smokeCeilingUsd?: number;
    readonly concurrency?: number | null;
  },
  io: DivergenceCommandIo,
): Promise<number> {
  io.stderr.write(`chi: resuming divergence run ${runDir}\n`);
  return reportSession(
    await runDivergenceSession({ runDir, ...sessionOptions(options, io) }),
    io,
    options.concurrency ?? null,
  );
}

/**
 * Prints the primary excess divergence per system and the excluded instances; the exit code.
 * A session stopped by a signal prints the default pilot's resume hint (`interruptedResumeHint`).
 */
async function reportSession(
  session: DivergenceSessionOutcome,
  io: DivergenceCommandIo,
  concurrency: number | null,
): Promise<number> {
  const { analysis } = session;
  if (analysis === null || session.releaseDir === null) {
    const hint = await interruptedResumeHint(session.runDir, { release: true, concurrency });
    if (hint !== null) {
      io.stderr.write(`${hint}\n`);
      io.stdout.write(`${session.runDir}\n`);
      return session.exitCode;
    }
    io.stderr.write(
      `chi: the run stopped before every request ended (${session.execution.stop?.message ?? session.execution.state}); no release written: resume it with chi pilot --resume ${session.runDir}\n`,
    );
    return 3;
  }
  for (const system of analysis.systems) {
    const primary = system.trajectory.find(
      (point) => point.checkpoint === analysis.primaryCheckpoint,
    );
    const excess = primary?.series.excess.estimate;
    const label = system.evidenceClass === 'scripted_baseline' ? ' (scripted baseline)' : '';
    io.stderr.write(
      `chi: ${system.systemId}${label}: excess divergence at primary checkpoint ${analysis.primaryCheckpoint} = ${excess === null || excess === undefined ? 'null' : excess.toFixed(3)}\n`,
    );
  }
  for (const instance of analysis.excludedInstances)
    io.stderr.write(
      `chi: incomplete instance ${instance.systemId} world ${instance.worldSeed} arm ${instance.arm} (excluded from the release): ${instance.reason}\n`,
    );
  io.stdout.write(`${session.releaseDir}\n`);
  return analysis.excludedInstances.length === 0 ? 0 : 3;
}

/**
 * Recomputes a divergence release for `chi verify` (`recomputeDivergence` of its raw part). A
 * release of the layout before figures/ and report.md (issue 37: `divergence.md`) is refused by
 * name: the verifier it carries knows that layout.
 */
async function recomputeDivergenceRelease(dir: string): Promise<DivergenceRecomputation> {
  if (existsSync(join(dir, 'divergence.md')) && !existsSync(join(dir, 'report.md')))
    throw new InvalidArgumentError(
      'divergence.md',
      'this divergence release has the layout before figures/ and report.md: verify it with the verifier it carries, node code/verify.mjs . inside it',
    );
  // compared without every world's call records (`releaseInputOf`)
  return releaseInputOf(await recomputeDivergence(dir));
}

/**
 * The divergence release kind `chi verify` passes to `@chi/report`'s verifier: a release whose
 * manifest names the divergence protocol is recomputed from its raw part and compared file by
 * file, value by value, like the pilot's (the same report, mismatches and exit codes).
 */
export const DIVERGENCE_RELEASE_KIND: ReleaseKind = divergenceReleaseKind(
  recomputeDivergenceRelease,
);
