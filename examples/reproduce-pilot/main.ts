/**
 * `pnpm start`: reproduces the CHI/CHIS longitudinal pilot (protocol 2026-09 v1) through the
 * `@chi/pilot` library API, not the `chi` CLI, then verifies the release with `@chi/report` and
 * prints the headline numbers with their evidence class.
 *
 * - Offline (default): the five scripted reference systems, 4 worlds, the full protocol. No
 *   network, no key, no cost. Every number is a SCRIPTED BASELINE, not a measurement of any model.
 *   The script then checks what the scripted systems are built to show and exits non-zero if not.
 * - `--live --ceiling-usd X`: the four protocol models on OpenRouter, with the key from
 *   OPENROUTER_API_KEY only. Add `--plan` first to see the worst-case reserved USD (sends nothing).
 * - `--resume DIR`: continue an interrupted run; no paid request is sent twice.
 */
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { apiKeyFromEnv, fetchCatalog, MissingApiKeyError } from '@chi/openrouter';
import {
  createProgressRenderer,
  DEFAULT_LIVE_ROSTER,
  defaultOfflineSettings,
  formatPlanCost,
  openRouterSystemSpec,
  type PilotOutcome,
  type PilotSettings,
  planCost,
  prepareRun,
  runPilot,
} from '@chi/pilot';
import {
  type ChartData,
  ChartDataSchema,
  formatEstimate,
  runEvidenceBanner,
  verifyRelease,
} from '@chi/report';
import { type ModelCatalog, parseWith } from '@chi/spec';

const USAGE = `usage: pnpm start [--live --ceiling-usd X] [--replicates N] [--plan] [--out DIR] [--resume DIR]
  (no flags)         offline pilot on the scripted reference systems (free, no network)
  --live             the four protocol models on OpenRouter; needs OPENROUTER_API_KEY and --ceiling-usd
  --ceiling-usd X    USD ceiling frozen in the manifest; the run stops before crossing it
  --replicates N     worlds (default: 4 offline, 1 live)
  --plan             print requests and the worst-case reserved USD per system, send nothing
  --out DIR          the run folder, as \`chi pilot --out\` (default: <temp dir>/chi-reproduce-pilot/<runId>)
  --resume DIR       resume the run folder DIR (never re-sends a paid request)`;

function usageError(message: string): never {
  console.error(`reproduce-pilot: ${message}\n${USAGE}`);
  process.exit(2);
}

function parseCommandLine() {
  try {
    return parseArgs({
      options: {
        live: { type: 'boolean', default: false },
        'ceiling-usd': { type: 'string' },
        replicates: { type: 'string' },
        plan: { type: 'boolean', default: false },
        out: { type: 'string' },
        resume: { type: 'string' },
        help: { type: 'boolean', default: false },
      },
      strict: true,
    }).values;
  } catch (error) {
    return usageError(error instanceof Error ? error.message : String(error));
  }
}

const args = parseCommandLine();

function positiveNumber(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0)
    usageError(`${flag}: expected a number >= 0, found ${text}`);
  return value;
}

if (args.help) {
  console.log(USAGE);
  process.exit(0);
}

const ceilingUsd = positiveNumber('--ceiling-usd', args['ceiling-usd']);
const replicates = positiveNumber('--replicates', args.replicates);
if (replicates !== undefined && !Number.isInteger(replicates))
  usageError(`--replicates: expected a whole number, found ${args.replicates}`);
// Where the run folder goes: --out DIR itself, or <temp dir>/chi-reproduce-pilot/<runId>.
const runFolder =
  args.out === undefined
    ? { runsRoot: join(tmpdir(), 'chi-reproduce-pilot') }
    : { runDir: resolve(args.out) };

/** The API key, from the environment only: it is never written to a file or a log. */
function liveApiKey(): string {
  try {
    return apiKeyFromEnv('OPENROUTER_API_KEY');
  } catch (error) {
    if (MissingApiKeyError.isInstance(error)) usageError(error.message);
    throw error;
  }
}

function settingsFromArgs(): PilotSettings {
  if (!args.live) {
    if (ceilingUsd !== undefined && ceilingUsd > 0)
      console.error(
        'reproduce-pilot: --ceiling-usd has no effect offline (scripted systems cost nothing)',
      );
    return defaultOfflineSettings(replicates === undefined ? {} : { replicates });
  }
  return defaultOfflineSettings({
    systems: DEFAULT_LIVE_ROSTER.map((entry) => openRouterSystemSpec(entry)),
    replicates: replicates ?? 1,
    ceilingUsd: ceilingUsd ?? 0,
    requireSmoke: true, // one small excluded request per model before any scored request
  });
}

/** Catalog prices, fetched before the manifest is frozen (they are frozen with it). */
async function liveCatalog(
  settings: PilotSettings,
  apiKey: string | undefined,
): Promise<ModelCatalog> {
  return fetchCatalog({
    models: settings.systems.map((system) => ({
      model: system.model,
      providers: system.providers,
      maxOutputTokens: system.maxOutputTokens,
    })),
    ...(apiKey === undefined ? {} : { apiKey }),
  });
}

async function main(): Promise<number> {
  const onEvent = createProgressRenderer(process.stderr);
  let outcome: PilotOutcome;
  let offlineDefault = false;

  if (args.resume !== undefined) {
    outcome = await runPilot({
      resumeDir: resolve(args.resume),
      // Needed only if the run has live systems left to send.
      ...(process.env.OPENROUTER_API_KEY === undefined ? {} : { apiKey: liveApiKey() }),
      onEvent,
    });
  } else {
    const settings = settingsFromArgs();
    if (args.plan) {
      let catalog: ModelCatalog | undefined;
      if (args.live) {
        try {
          catalog = await liveCatalog(
            settings,
            process.env.OPENROUTER_API_KEY?.trim() || undefined,
          );
        } catch (error) {
          // As `chi pilot --plan` does: the declared safety prices still bound the worst case.
          console.error(
            `reproduce-pilot: catalog prices unavailable (${error instanceof Error ? error.message : String(error)}); using the declared safety prices only`,
          );
        }
      }
      const cost = planCost(prepareRun({ settings }), catalog);
      console.log(formatPlanCost(cost, settings.ceilingUsd));
      return 0;
    }
    if (args.live && ceilingUsd === undefined)
      usageError(
        '--live needs --ceiling-usd X: the ceiling is frozen in the manifest before the first scored request',
      );
    const apiKey = args.live ? liveApiKey() : undefined;
    const catalog = args.live ? await liveCatalog(settings, apiKey) : undefined;
    offlineDefault = !args.live && replicates === undefined;
    outcome = await runPilot({
      settings,
      ...runFolder,
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(catalog === undefined ? {} : { catalog }),
      onEvent,
    });
  }

  console.log(`\nrun folder: ${outcome.runDir}`);
  console.log(
    `exit code ${outcome.exitCode}: ${outcome.execution.state}, ${outcome.execution.completeBlocks} complete and ${outcome.execution.incompleteBlocks} incomplete blocks${outcome.execution.stop === null ? '' : `, stopped: ${JSON.stringify(outcome.execution.stop)}`}`,
  );
  if (outcome.releaseDir === null) return outcome.exitCode;

  // Anyone can recompute every number of the release from its raw records.
  const verified = await verifyRelease(outcome.releaseDir);
  console.log(
    `release: ${outcome.releaseDir}\nverify: ${verified.ok ? 'every number recomputes' : `${verified.mismatches.length} mismatch(es)`}`,
  );
  const chartData = parseWith(
    ChartDataSchema,
    JSON.parse(readFileSync(join(outcome.releaseDir, 'chart-data', 'chart-data.json'), 'utf8')),
    'chart-data.json',
  );
  printSummary(chartData);

  const problems = verified.ok
    ? []
    : verified.mismatches.slice(0, 5).map((m) => `verify: ${m.message}`);
  if (offlineDefault) problems.push(...checkScriptedBaseline(chartData, outcome));
  if (problems.length > 0) {
    console.error(`\nself-check FAILED:\n- ${problems.join('\n- ')}`);
    return 1;
  }
  if (offlineDefault)
    console.log(
      '\nself-check passed: the scripted systems show what they are built to show (SCRIPTED BASELINE)',
    );
  return outcome.exitCode;
}

function printSummary(data: ChartData): void {
  const banner = runEvidenceBanner(data.run) ?? 'Live models';
  console.log(`\n${banner}. Evidence class of this run: ${data.run.evidenceClass}.`);
  console.log(
    `${data.run.worldSeeds.length} worlds; pointwise 95% intervals from ${data.run.analysis.resamples} resamples of whole worlds; cells with fewer than ${data.run.analysis.exploratoryBelowWorlds} complete worlds are exploratory.`,
  );
  const loads = [
    ...new Set(data.memory.filter((p) => p.condition === 'notebook').map((p) => p.load)),
  ].sort((a, b) => a - b);
  console.log(
    `\nQ_M of mean factors (notebook condition) at N = ${loads.join(', ')}, and EIMC_0.8:`,
  );
  for (const system of data.run.systems) {
    const points = loads.map((load) => {
      const point = data.memory.find(
        (p) => p.systemId === system.id && p.condition === 'notebook' && p.load === load,
      );
      return point === undefined ? 'n/a' : formatEstimate(point.qualityScore);
    });
    const e = data.eimc.find((entry) => entry.systemId === system.id && entry.tau === 0.8);
    const eimcText =
      e === undefined
        ? 'n/a'
        : e.value === null
          ? 'no passing load (not 0)'
          : `${e.value} (${e.status})`;
    const label = `${system.id}${system.uncappedNotebook ? ' [uncapped notebook: reference condition]' : ''} <${system.evidenceClass}>`;
    console.log(`  ${label}\n    Q_M: ${points.join(' | ')}\n    EIMC_0.8: ${eimcText}`);
  }
  console.log(`\nCHI: ${data.chi.value} (${data.chi.reason})`);
}

/** What the scripted systems are designed to show on the default offline pilot. */
function checkScriptedBaseline(data: ChartData, outcome: PilotOutcome): string[] {
  const problems: string[] = [];
  const eimc = (id: string) =>
    data.eimc.find((entry) => entry.systemId === id && entry.tau === 0.8);
  if (outcome.exitCode !== 0) problems.push(`exit code ${outcome.exitCode}, expected 0`);
  if (data.run.systems.some((system) => system.evidenceClass !== 'scripted_baseline'))
    problems.push('every offline system must be labelled scripted_baseline');
  if (data.chi.value !== null) problems.push('CHI must be null without a human calibration');
  const perfect = eimc('perfect');
  if (perfect?.status !== 'lower_bound' || perfect.value !== 256)
    problems.push(
      `perfect: EIMC_0.8 must be the right-censored lower bound 256, found ${JSON.stringify(perfect)}`,
    );
  if (eimc('capacity-keeper')?.status !== 'capacity')
    problems.push('capacity-keeper: EIMC_0.8 must be a capacity inside the grid');
  for (const id of ['latest-wins', 'confabulator', 'abstainer']) {
    const entry = eimc(id);
    if (entry?.status !== 'no_passing_load' || entry.value !== null)
      problems.push(
        `${id}: EIMC_0.8 must be no_passing_load with value null, found ${JSON.stringify(entry)}`,
      );
  }
  for (const point of data.memory.filter(
    (p) => p.systemId === 'latest-wins' && p.condition === 'notebook',
  ))
    if (point.factors.i.estimate !== 0)
      problems.push(`latest-wins must fail every interference probe (N=${point.load})`);
  for (const point of data.memory.filter((p) => p.condition === 'blank'))
    if (point.qualityScore.estimate !== 0)
      problems.push(`${point.systemId}: the blank-notebook control must score Q_M 0`);
  return problems;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`reproduce-pilot: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
