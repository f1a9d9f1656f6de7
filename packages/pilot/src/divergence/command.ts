import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { checkSha256Sums } from '@chi/report';
import { InvalidArgumentError } from '@chi/spec';
import { loadPromptTemplates } from '../prompts';
import { DEFAULT_RUNS_ROOT } from '../run-create';
import { divergencePlanCost, formatDivergencePlan } from './plan-cost';
import { DIVERGENCE_PROTOCOL_ID } from './protocol';
import { compareDivergenceRelease, writeDivergenceRelease } from './release';
import { defaultDivergenceManifest, recomputeDivergence, runDivergenceProtocol } from './run';

/** Output of the divergence commands (the CLI's stdout and stderr). */
export interface DivergenceCommandIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  readonly cwd?: string;
}

/** Options of `chi pilot --protocol divergence-v0.1`. */
export interface DivergenceCommandOptions {
  readonly protocol: string;
  readonly plan: boolean;
  readonly out: string | null;
  /** Worlds (`--replicates`); default 8. */
  readonly replicates: number | null;
  readonly resamples: number | null;
}

/** Default number of worlds of the offline divergence protocol. */
export const DIVERGENCE_DEFAULT_WORLDS = 8;

/** Checks the protocol name (`chi pilot --protocol NAME`). */
export function assertDivergenceProtocol(name: string): void {
  if (name !== DIVERGENCE_PROTOCOL_ID)
    throw new InvalidArgumentError(
      'protocol',
      `expected ${DIVERGENCE_PROTOCOL_ID} (the only protocol besides the default pilot), found ${JSON.stringify(name)}`,
    );
}

/**
 * `chi pilot --protocol divergence-v0.1 [--plan] [--out DIR] [--replicates N] [--resamples N]`:
 * runs the divergence protocol offline with its scripted reference systems and writes the run
 * folder and its release; `--plan` prints the request count and worst-case cost and sends
 * nothing. Resolves to the exit code.
 */
export async function divergencePilotCommand(
  options: DivergenceCommandOptions,
  io: DivergenceCommandIo,
): Promise<number> {
  assertDivergenceProtocol(options.protocol);
  const worlds = options.replicates ?? DIVERGENCE_DEFAULT_WORLDS;
  const prompts = loadPromptTemplates();
  if (options.plan) {
    const manifest = defaultDivergenceManifest(
      worlds,
      new Date().toISOString(),
      prompts,
      options.resamples ?? undefined,
    );
    io.stdout.write(formatDivergencePlan(manifest, divergencePlanCost(manifest, prompts)));
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
  if (existsSync(join(runDir, 'manifest.json')))
    throw new InvalidArgumentError(
      'out',
      `${runDir} already holds a run (manifest.json); the divergence protocol does not resume: choose a new --out`,
    );
  io.stderr.write(
    `chi: divergence protocol ${DIVERGENCE_PROTOCOL_ID}, ${worlds} world(s), scripted baselines (not models), offline\n`,
  );
  const { analysis } = await runDivergenceProtocol({
    runDir,
    worlds,
    ...(options.resamples === null ? {} : { resamples: options.resamples }),
    prompts,
  });
  const releaseDir = await writeDivergenceRelease(runDir, analysis);
  for (const system of analysis.systems) {
    const primary = system.trajectory.find(
      (point) => point.checkpoint === analysis.primaryCheckpoint,
    );
    const excess = primary?.series.excess.estimate;
    io.stderr.write(
      `chi: ${system.systemId} (scripted baseline): excess divergence at primary checkpoint ${analysis.primaryCheckpoint} = ${excess === null || excess === undefined ? 'null' : excess.toFixed(3)}\n`,
    );
  }
  io.stdout.write(`${releaseDir}\n`);
  return 0;
}

/** Whether `dir` is a divergence release (`chi verify` then recomputes it with this module). */
export function isDivergenceRelease(dir: string): boolean {
  return existsSync(join(dir, 'divergence.json')) && existsSync(join(dir, 'calls.jsonl'));
}

/**
 * `chi verify RELEASE` for a divergence release: first checks every file against `SHA256SUMS`
 * (an altered or missing listed file, or an unlisted extra file, is reported by name and nothing
 * is recomputed), then recomputes every derived file from the raw call log and the manifest in the
 * release and compares bytes. Exit 0 when all match, 1 otherwise, like the pilot's `chi verify`;
 * a raw record that cannot be read throws `RunFolderDamagedError` (exit 5).
 */
export async function verifyDivergenceCommand(
  dir: string,
  io: DivergenceCommandIo,
): Promise<number> {
  const problems = await checkSha256Sums(dir);
  if (problems.length > 0) {
    for (const problem of problems) io.stderr.write(`MISMATCH ${problem.message}\n`);
    const files = [...new Set(problems.map((problem) => problem.path))];
    io.stderr.write(
      `FAILED: ${problems.length} mismatch(es) in ${files.length} file(s): ${files.join(', ')}\n`,
    );
    return 1;
  }
  const { analysis } = await recomputeDivergence(dir);
  const mismatches = await compareDivergenceRelease(dir, analysis);
  if (mismatches.length === 0) {
    io.stdout.write(
      'OK: divergence release; every file matches SHA256SUMS; every derived file recomputed from calls.jsonl and manifest.json matches exactly.\n',
    );
    return 0;
  }
  for (const mismatch of mismatches)
    io.stderr.write(`MISMATCH ${mismatch.file}: ${mismatch.problem}\n`);
  io.stderr.write(`FAILED: ${mismatches.length} file(s) differ\n`);
  return 1;
}
