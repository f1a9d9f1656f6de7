import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ChartDataSchema, runChartData } from '@chi/analysis';
import { apiKeyFromEnv, CatalogError, LedgerFileError, MissingApiKeyError } from '@chi/openrouter';
import { runVerifyCli } from '@chi/report';
import { writeInspectLogs } from '@chi/report/inspect';
import { acquireRunLock, RUN_FILE_NAME } from '@chi/run/internal';
import {
  ApiCallError,
  ChiError,
  type HumanCalibration,
  InvalidArgumentError,
  type ModelCatalog,
  type Price,
  RunFolderDamagedError,
  RunFolderLockedError,
  type SystemSpec,
  ValidationError,
} from '@chi/spec';
import { RunStatusSchema } from '@chi/spec/internal';
import { minimumMemoryLoad } from '@chi/worlds';
import {
  DIVERGENCE_RELEASE_KIND,
  divergencePilotCommand,
  resumeDivergenceCommand,
} from '../divergence/command';
import { isDivergenceRunFolder } from '../divergence/run';
import {
  declaredEndpointSystems,
  fetchLiveCatalog,
  isUnpricedEndpoint,
  probeEndpoint,
} from '../endpoints/live-endpoints';
import { serveScriptedSystem } from '../endpoints/serve';
import { runSmokeChecks } from '../endpoints/smoke';
import { withMemoryPolicy } from '../memory-systems/memory-policy-option';
import { isMemoryReference, memoryReferenceSpec } from '../memory-systems/reference-systems';
import {
  EXIT_CODES,
  finishRun,
  historyResultsCollector,
  runPilot,
  SmokeCheckFailedError,
} from '../pilot';
import type { PilotSettings } from '../pilot-settings';
import { readDeclaredPrices } from '../plan/declared-prices';
import { formatPlanCost, planCost } from '../plan/plan-cost';
import { varianceModelFromRelease } from '../plan/plan-from';
import {
  binomialWorstCase,
  DEFAULT_TARGET_HALF_WIDTH,
  formatPlanPrecision,
  planPrecision,
} from '../plan/plan-precision';
import { readCalibrationFile } from '../run-folder/human-data-file';
import { makeDirectory } from '../run-folder/make-directory';
import { ManifestIntegrityError } from '../run-folder/manifest';
import { DEFAULT_RUNS_ROOT, planRun } from '../run-folder/run-create';
import { readJsonFile, runPaths } from '../run-folder/run-folder';
import { checkRequestRecords } from '../runner/request-records-check';
import { IMITATOR_SYSTEM_NAME, imitatorSystemSpec } from '../scripted/scripted-imitator';
import { scriptedDefinition, scriptedSystemSpec } from '../scripted/scripted-systems';
import {
  DEFAULT_LIVE_ROSTER,
  DEFAULT_SCRIPTED_ROSTER,
  defaultOfflineSettings,
  openAiCompatibleSystemSpec,
  openRouterSystemSpec,
} from '../settings';
import { mergeCommand, shardRunOptions } from '../shard/merge-command';
import { studyCommand } from '../study/study-command';
import { isStudyFolder, verifyStudyCommand } from '../study/study-verify';
import { calibrateCommand } from './calibrate-command';
import {
  type CliCommand,
  checkExperimentOptions,
  type PilotCommand,
  parseCli,
  type SmokeCommand,
} from './cli-args';
import type { CliIo } from './cli-io';
import { printOnlyCommand } from './cli-quick';
import {
  configErrorWording,
  pilotConfigArgs,
  readPilotConfigFile,
  runConfigurationOf,
} from './config-file';
import { writeStarterConfig } from './init-config';
import { createProgressRenderer } from './progress';
import { interruptedResumeHint } from './resume-hint';
import { formatHeadline } from './run-summary';
import { UsageError } from './usage-error';
import { viewCommand } from './view-cli';

/** The probes per stratum of every CLI run (the protocol's 8), which sets the smallest load. */
const CLI_PROBES_PER_STRATUM = 8;

/** A folder argument that must be an existing run folder: a usage error (exit 2) otherwise. */
function existingRunFolder(path: string, what: string): string {
  if (!existsSync(path) || !statSync(path).isDirectory())
    throw new UsageError(`${what}: ${path} does not exist or is not a folder`);
  if (!existsSync(join(path, RUN_FILE_NAME.manifest)))
    throw new UsageError(
      `${what}: ${path} holds no ${RUN_FILE_NAME.manifest} (not a run folder, or its creation never finished)`,
    );
  return path;
}

function liveSystems(
  command: Pick<PilotCommand | SmokeCommand, 'models' | 'baseUrl'> & {
    readonly evidenceClass?: PilotCommand['evidenceClass'];
  },
  prices: ReadonlyMap<string, Price> = new Map(),
): SystemSpec[] {
  if (command.baseUrl !== null) {
    // labelled by what the user declares; undeclared stays an unverified endpoint
    const declared = command.evidenceClass ?? null;
    return (command.models ?? []).map((entry) =>
      openAiCompatibleSystemSpec({
        model: entry.model,
        baseUrl: command.baseUrl as string,
        safetyPrice: prices.get(entry.model) ?? null,
        ...(declared === null ? {} : { evidenceClass: declared }),
      }),
    );
  }
  const priced = (entry: { model: string }) => {
    const price = prices.get(entry.model);
    return price === undefined ? {} : { safetyPrice: price };
  };
  if (command.models === null)
    return DEFAULT_LIVE_ROSTER.map((entry) => openRouterSystemSpec({ ...entry, ...priced(entry) }));
  return command.models.map((entry) =>
    openRouterSystemSpec({ model: entry.model, providers: entry.providers, ...priced(entry) }),
  );
}

/** Declared prices of a pilot command: the `--prices` file, then each `--price` (which wins). */
async function declaredPrices(command: PilotCommand, cwd: string): Promise<Map<string, Price>> {
  let prices = new Map<string, Price>();
  if (command.pricesFile !== null) {
    try {
      prices = await readDeclaredPrices(resolve(cwd, command.pricesFile));
    } catch (error) {
      throw new UsageError(`--prices: ${oneLine(error)}`);
    }
  }
  for (const entry of command.prices) prices.set(entry.model, entry.price);
  checkPricesUsed(command);
  return prices;
}

/**
 * A `--price` for a model the run does not include is refused: it would price nothing, and the
 * model meant (a typo, another provider's name) would run at another price.
 */
function checkPricesUsed(command: PilotCommand): void {
  const models =
    command.models?.map((entry) => entry.model) ??
    (command.live ? DEFAULT_LIVE_ROSTER.map((entry) => entry.model) : []);
  const unused = command.prices.find((entry) => !models.includes(entry.model));
  if (unused !== undefined)
    throw new UsageError(
      `--price: ${unused.model} is not a model of this run (${models.join(', ') || 'none'}); name it in --models or remove the --price`,
    );
}

/**
 * Refuses a live endpoint model without a declared price unless the user accepted that the
 * ceiling cannot bound it (a scripted baseline served by `chi serve` is free and needs none).
 */
function checkUnboundedSpend(
  systems: readonly SystemSpec[],
  command: PilotCommand,
  io: CliIo,
): void {
  const unpriced = systems.filter(isUnpricedEndpoint);
  if (unpriced.length === 0) return;
  const names = unpriced.map((system) => system.model).join(', ');
  if (!command.acceptUnboundedSpend)
    throw new UsageError(
      `chi pilot: no price is declared for ${names} at ${command.baseUrl}: the USD ceiling cannot protect spend on this endpoint. Declare prices (--price MODEL=IN,OUT[,REQUEST] or --prices FILE), or pass --accept-unbounded-spend`,
    );
  io.stderr.write(
    `chi: WARNING: no price declared for ${names}: the ceiling does not bound its spend (--accept-unbounded-spend); reported costs are recorded\n`,
  );
}

/**
 * The scripted systems of an offline run: the named ones, or the default roster plus, when a
 * calibration is given, the imitator aimed at it (a SCRIPTED BASELINE that needs a calibration, so
 * the default release without one is unchanged).
 */
function offlineSystems(
  names: readonly string[] | null,
  calibration: HumanCalibration | null,
): SystemSpec[] {
  const chosen =
    names ??
    (calibration === null
      ? DEFAULT_SCRIPTED_ROSTER
      : [...DEFAULT_SCRIPTED_ROSTER, IMITATOR_SYSTEM_NAME]);
  return chosen.map((name) => {
    if (name === IMITATOR_SYSTEM_NAME) {
      if (calibration === null)
        throw new UsageError(
          `--systems: ${IMITATOR_SYSTEM_NAME} aims at a calibration's centroid: give --calibration FILE`,
        );
      return imitatorSystemSpec(calibration);
    }
    if (isMemoryReference(name)) return memoryReferenceSpec(name);
    try {
      scriptedDefinition(name);
    } catch {
      throw new UsageError(
        `--systems: unknown scripted system ${JSON.stringify(name)}; expected ${DEFAULT_SCRIPTED_ROSTER.join(', ')} or ${IMITATOR_SYSTEM_NAME} (with --calibration)`,
      );
    }
    return scriptedSystemSpec(name);
  });
}

/** The run settings of a parsed `chi pilot` command line, with its declared prices (exported for tests). */
export function settingsFor(
  command: PilotCommand,
  prices: ReadonlyMap<string, Price> = new Map(),
  calibration: HumanCalibration | null = null,
): PilotSettings {
  checkExperimentOptions(command);
  const live = command.live || command.baseUrl !== null;
  const systems = withMemoryPolicy(
    live ? liveSystems(command, prices) : offlineSystems(command.systems, calibration),
    command.memory ?? null,
  );
  const base = defaultOfflineSettings({ systems });
  const loads = command.loads ?? base.loads;
  const smallest = minimumMemoryLoad(CLI_PROBES_PER_STRATUM);
  const tooSmall = loads.find((load) => load < smallest);
  if (tooSmall !== undefined)
    throw new UsageError(
      `--loads: each load must be at least ${smallest} (${CLI_PROBES_PER_STRATUM} probes in each of the six strata need that many keys), found ${tooSmall}`,
    );
  return defaultOfflineSettings({
    systems,
    replicates: command.replicates ?? (live ? 1 : base.replicates),
    loads,
    batchSize: command.batchSize,
    controlsAtLoad:
      command.controls && loads.length > 0 ? (loads.includes(32) ? 32 : (loads[0] ?? null)) : null,
    history: command.history,
    behavior: command.behavior,
    ...(command.transcriptReplay ? { transcriptReplay: true } : {}),
    ...(command.probeWordings ? { probeWordings: true } : {}),
    ...(command.templates === null ? {} : { templates: command.templates }),
    ...(command.experimentOptions === undefined
      ? {}
      : { experimentOptions: command.experimentOptions }),
    ceilingUsd: command.ceilingUsd ?? 0,
    concurrency: command.concurrency ?? base.concurrency,
    ...(command.seed === null ? {} : { rootSeed: command.seed }),
    ...(command.resamples === null ? {} : { resamples: command.resamples }),
    ...(command.compareTo === undefined ? {} : { compareTo: command.compareTo }),
    requireSmoke: live,
  });
}

/**
 * Catalog prices for `--plan` of live systems, or undefined (scripted systems, or the catalog is
 * unreachable: the plan then prices with the declared safety prices only).
 */
async function planCatalog(
  systems: readonly SystemSpec[],
  io: CliIo,
): Promise<ModelCatalog | undefined> {
  if (!systems.some((system) => system.kind !== 'scripted')) return undefined;
  try {
    return await fetchLiveCatalog(
      systems,
      io.env.OPENROUTER_API_KEY?.trim() || undefined,
      io.fetch,
    );
  } catch (error) {
    io.stderr.write(
      `chi: catalog prices unavailable (${oneLine(error)}); using declared safety prices only\n`,
    );
    return undefined;
  }
}

/**
 * The systems of a live run as the manifest will freeze them, for the default pilot and the
 * divergence protocol alike: a ceiling is required; OpenRouter models get their catalog prices
 * (the key read from the environment only); an OpenAI-compatible endpoint is probed, its `chi
 * serve` scripted systems labelled (and free), and an endpoint without declared prices refused
 * unless `--accept-unbounded-spend`. Scripted systems pass through unchanged.
 */
async function selectLiveSystems(
  command: PilotCommand,
  systems: readonly SystemSpec[],
  io: CliIo,
): Promise<{ systems: readonly SystemSpec[]; catalog: ModelCatalog | undefined }> {
  if (!systems.some((system) => system.kind !== 'scripted')) return { systems, catalog: undefined };
  if (command.ceilingUsd === null)
    throw new UsageError(
      'chi pilot: a live run needs --ceiling-usd X (frozen in the manifest before the first scored request)',
    );
  if (systems.some((system) => system.kind === 'openrouter')) {
    const apiKey = apiKeyFromEnv('OPENROUTER_API_KEY', io.env);
    return { systems, catalog: await fetchLiveCatalog(systems, apiKey, io.fetch) };
  }
  const served = await probeEndpoint(command.baseUrl as string, io.fetch);
  const declared = declaredEndpointSystems(systems, served, io.env);
  checkUnboundedSpend(declared, command, io);
  return { systems: declared, catalog: undefined };
}

/**
 * `chi pilot --protocol divergence-v0.1 ...`: the scripted divergence baselines offline, or the
 * live systems chosen exactly as the default pilot chooses them (same options, prices, catalog,
 * endpoint probe and ceiling rule).
 */
async function divergenceCommand(command: PilotCommand, io: CliIo): Promise<number> {
  const protocol = command.protocol as string;
  const options = {
    ...command,
    protocol,
    smokeCeilingUsd: command.smokeCeilingUsd,
    allowFailedSmoke: command.allowFailedSmoke,
  };
  if (!command.live && command.baseUrl === null) {
    if (command.memory === 'system')
      throw new UsageError(
        '--memory system: the scripted divergence baselines keep no memory of their own; give --base-url (your stateful endpoint) or --live',
      );
    return divergencePilotCommand({ ...options, systems: null }, io);
  }
  const cwd = io.cwd ?? process.cwd();
  const systems = withMemoryPolicy(
    liveSystems(command, await declaredPrices(command, cwd)),
    command.memory ?? null,
  );
  if (command.plan) {
    const catalog = await planCatalog(systems, io);
    return divergencePilotCommand(
      { ...options, systems, ...(catalog === undefined ? {} : { catalog }) },
      io,
    );
  }
  const selected = await selectLiveSystems(command, systems, io);
  return divergencePilotCommand(
    {
      ...options,
      systems: selected.systems,
      ...(selected.catalog === undefined ? {} : { catalog: selected.catalog }),
    },
    io,
  );
}

/**
 * A resume option the divergence protocol does not have is refused rather than ignored: it
 * always publishes its release when every request has ended.
 */
function refuseDivergenceResumeOptions(command: PilotCommand): void {
  if (!command.release)
    throw new UsageError(
      '--no-release: a divergence run folder publishes its release when complete; remove --no-release',
    );
}

async function pilotCommand(
  command: PilotCommand,
  io: CliIo,
  configFileSha256: string | null,
): Promise<number> {
  const started = Date.now();
  const render = createProgressRenderer(io.stderr);
  const cwd = io.cwd ?? process.cwd();
  if (command.resume !== null) {
    const resumeDir = existingRunFolder(resolve(cwd, command.resume), '--resume');
    if (await isDivergenceRunFolder(resumeDir)) {
      refuseDivergenceResumeOptions(command);
      return resumeDivergenceCommand(
        resumeDir,
        {
          allowFailedSmoke: command.allowFailedSmoke,
          smokeCeilingUsd: command.smokeCeilingUsd,
          concurrency: command.concurrency,
        },
        io,
      );
    }
    const outcome = await runPilot({
      resumeDir,
      // Each system reads only the variable its manifest entry names (the first session's).
      env: io.env,
      ...(command.concurrency === null ? {} : { concurrency: command.concurrency }),
      release: command.release,
      allowFailedSmoke: command.allowFailedSmoke,
      onEvent: render,
      ...(io.signal === undefined ? {} : { signal: io.signal }),
      ...(io.fetch === undefined ? {} : { fetch: io.fetch }),
      ...shardRunOptions({}, io.env),
    });
    return reportOutcome(outcome, command, started, io);
  }
  const calibration =
    command.calibration === null
      ? null
      : await readCalibrationFile(resolve(cwd, command.calibration));
  let settings = settingsFor(command, await declaredPrices(command, cwd), calibration);
  if (calibration !== null) settings = { ...settings, calibration };
  if (command.plan) {
    const catalog = await planCatalog(settings.systems, io);
    const prepared = planRun({ settings });
    io.stdout.write(`${formatPlanCost(planCost(prepared, catalog), command.ceilingUsd)}\n`);
    const precision = planPrecision({
      worlds: prepared.frozen.manifest.worldSeeds.length,
      level: prepared.frozen.manifest.analysis.level,
      targetHalfWidth: command.targetHalfWidth ?? DEFAULT_TARGET_HALF_WIDTH,
      model:
        command.planFrom === undefined
          ? binomialWorstCase()
          : await varianceModelFromRelease(resolve(cwd, command.planFrom)),
    });
    io.stdout.write(`\n${formatPlanPrecision(precision)}\n`);
    return EXIT_CODES.ok;
  }
  const selected = await selectLiveSystems(command, settings.systems, io);
  const catalog = selected.catalog;
  settings = { ...settings, systems: selected.systems };
  settings = {
    ...settings,
    configuration: runConfigurationOf(command, settings, configFileSha256),
  };
  const outcome = await runPilot({
    settings,
    ...(command.out === null
      ? { runsRoot: resolve(cwd, DEFAULT_RUNS_ROOT) }
      : { runDir: resolve(cwd, command.out) }),
    env: io.env,
    ...(catalog === undefined ? {} : { catalog }),
    smokeCeilingUsd: command.smokeCeilingUsd,
    allowFailedSmoke: command.allowFailedSmoke,
    release: command.release,
    onEvent: render,
    ...(io.signal === undefined ? {} : { signal: io.signal }),
    ...(io.fetch === undefined ? {} : { fetch: io.fetch }),
    ...shardRunOptions(command, io.env),
  });
  return reportOutcome(outcome, command, started, io);
}

/**
 * Ends `chi pilot`: the elapsed time on stderr; after an interruption the block counts of
 * status.json and the exact resume command; on stdout the headline numbers (when a release was
 * written) and, as the last line, the release (or run) folder.
 */
async function reportOutcome(
  outcome: Awaited<ReturnType<typeof runPilot>>,
  command: PilotCommand,
  started: number,
  io: CliIo,
): Promise<number> {
  io.stderr.write(
    `chi: finished in ${((Date.now() - started) / 1000).toFixed(1)} s (exit ${outcome.exitCode})\n`,
  );
  const hint = await interruptedResumeHint(outcome.runDir, {
    release: command.release,
    concurrency: command.concurrency,
  });
  if (hint !== null) io.stderr.write(`${hint}\n`);
  if (outcome.releaseDir !== null) {
    const status = await readJsonFile(runPaths(outcome.runDir).status, RunStatusSchema);
    const chartData = runChartData(
      ChartDataSchema.parse(
        JSON.parse(readFileSync(join(outcome.releaseDir, 'chart-data', 'chart-data.json'), 'utf8')),
      ),
    );
    io.stdout.write(`${formatHeadline(chartData, status).join('\n')}\n`);
  }
  io.stdout.write(`${outcome.releaseDir ?? outcome.runDir}\n`);
  return outcome.exitCode;
}

async function smokeCommand(command: SmokeCommand, io: CliIo): Promise<number> {
  const systems = liveSystems(command);
  if (command.baseUrl === null) apiKeyFromEnv('OPENROUTER_API_KEY', io.env);
  if (command.baseUrl !== null) await probeEndpoint(command.baseUrl, io.fetch);
  const stamp = new Date()
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/[-:]/g, '');
  const dir = resolve(
    io.cwd ?? process.cwd(),
    command.out ?? join(DEFAULT_RUNS_ROOT, `smoke-${stamp}`),
  );
  await makeDirectory(dir);
  const results = await runSmokeChecks({
    systems,
    env: io.env,
    ceilingUsd: command.ceilingUsd,
    logPath: join(dir, RUN_FILE_NAME.smoke),
    ...(io.fetch === undefined ? {} : { fetch: io.fetch }),
  });
  for (const result of results) {
    io.stderr.write(
      `chi: smoke ${result.passed ? 'PASS' : 'FAIL'} ${result.systemId} (${result.model}): allowlist ${String(result.checks.allowlistResolved)}, price known ${String(result.checks.priceKnown)}, reply parsed ${String(result.checks.replyParsed)}${result.passed ? '' : ` — ${result.detail}`}\n`,
    );
  }
  io.stdout.write(`${join(dir, RUN_FILE_NAME.smoke)}\n`);
  return results.every((result) => result.passed) ? EXIT_CODES.ok : EXIT_CODES.smokeFailed;
}

function prefixed(message: string): string {
  return /^chi[ :]/.test(message) ? message : `chi: ${message}`;
}

function oneLine(error: unknown): string {
  if (CatalogError.isInstance(error))
    return `the catalog does not support the plan: ${error.problems.join('; ')}`;
  if (ValidationError.isInstance(error)) return error.message.replace(/\n\s*/g, ' ');
  const message = error instanceof Error ? error.message : String(error);
  return message
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join(' ');
}

/**
 * Runs one `chi` command line and resolves to its exit code (`EXIT_CODE_TABLE`, `exit-codes.ts`:
 * 0 ok, 1 runtime failure, 2 usage, 3 stopped or incomplete, 4 smoke check failed, 5 damaged run
 * folder, 6 run folder in use by another command). Progress goes to `stderr`; the last `stdout`
 * line is the path of the release (or run folder).
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let command: CliCommand;
  let configFileSha256: string | null = null;
  // A message about an option the configuration file set names the file and its key.
  let reword = (message: string) => message;
  try {
    command = parseCli(argv);
    if (command.command === 'pilot' && command.config !== null) {
      const loaded = readPilotConfigFile(
        resolve(io.cwd ?? process.cwd(), command.config),
        command.config,
      );
      configFileSha256 = loaded.sha256;
      const commandLine = argv.slice(1);
      reword = configErrorWording(loaded, command.config, commandLine);
      command = parseCli(['pilot', ...pilotConfigArgs(loaded, commandLine), ...commandLine]);
    }
  } catch (error) {
    io.stderr.write(`${prefixed(reword(oneLine(error)))}\n`);
    return EXIT_CODES.usage;
  }
  try {
    switch (command.command) {
      case 'help':
      case 'version':
      case 'templates':
        return printOnlyCommand(command, io) ?? EXIT_CODES.runtimeFailure;
      case 'export': {
        const cwd = io.cwd ?? process.cwd();
        const runDir = existingRunFolder(resolve(cwd, command.runDir), 'chi export');
        const summary = await writeInspectLogs({ runDir, outDir: resolve(cwd, command.outDir) });
        io.stderr.write(
          `chi: wrote ${summary.files.length} Inspect log(s) with ${summary.samples} samples; open them with: inspect view --log-dir ${command.outDir}\n`,
        );
        io.stdout.write(`${summary.outDir}\n`);
        return EXIT_CODES.ok;
      }
      case 'init': {
        const file = resolve(io.cwd ?? process.cwd(), command.file);
        writeStarterConfig(file, command.force);
        io.stderr.write(
          `chi: wrote a starter configuration; edit it, then run: chi pilot --config ${command.file}\n`,
        );
        io.stdout.write(`${file}\n`);
        return EXIT_CODES.ok;
      }
      case 'pilot':
        if (command.protocol !== undefined) return await divergenceCommand(command, io);
        return await pilotCommand(command, io, configFileSha256);
      case 'smoke':
        return await smokeCommand(command, io);
      case 'serve': {
        const server = await serveScriptedSystem({
          system: command.system,
          host: command.host,
          port: command.port,
          ...(command.seed === null ? {} : { seed: command.seed }),
        });
        io.stderr.write(
          `chi: serving ${server.model} (scripted baseline, not a model) at ${server.baseUrl}; Ctrl-C stops\n`,
        );
        io.stdout.write(`${server.baseUrl}\n`);
        await (io.untilStopped ?? new Promise<void>(() => {}));
        await server.close();
        return EXIT_CODES.ok;
      }
      case 'score': {
        const runDir = existingRunFolder(
          resolve(io.cwd ?? process.cwd(), command.runDir),
          'chi score',
        );
        const lock = acquireRunLock(runDir, { command: 'chi score' });
        try {
          // One streamed pass over the attempt log checks the stored requests and collects the
          // results the CHIS entries read (the integrity check still runs before they are written).
          const historyResults = await historyResultsCollector(runDir);
          await checkRequestRecords(runDir, historyResults.add);
          const releaseDir = await finishRun(runDir, {
            release: command.release,
            historyResults,
            onEvent: createProgressRenderer(io.stderr),
          });
          io.stdout.write(`${releaseDir ?? runDir}\n`);
        } finally {
          lock.release();
        }
        return EXIT_CODES.ok;
      }
      case 'calibrate':
        return await calibrateCommand(command, io);
      case 'merge':
        return await mergeCommand(command, io);
      case 'study':
        return await studyCommand(command, io);
      case 'view':
        return await viewCommand(command, io);
      case 'verify': {
        const target = command.argv.filter((arg) => !arg.startsWith('-'));
        const dir = resolve(io.cwd ?? process.cwd(), target[0] ?? '.');
        if (target.length === 1 && command.argv.length === 1 && isStudyFolder(dir))
          return await verifyStudyCommand(dir, io);
        // one verifier for every release: a protocol's release is recomputed by its release kind,
        // picked by the protocol its manifest names
        const argv = command.argv.map((arg) => (arg === target[0] ? dir : arg));
        return await runVerifyCli(
          argv,
          { stdout: (text) => io.stdout.write(text), stderr: (text) => io.stderr.write(text) },
          { kinds: [DIVERGENCE_RELEASE_KIND] },
        );
      }
    }
  } catch (error) {
    io.stderr.write(`${prefixed(reword(oneLine(error)))}\n`);
    if (SmokeCheckFailedError.isInstance(error)) return EXIT_CODES.smokeFailed;
    if (RunFolderLockedError.isInstance(error)) return EXIT_CODES.locked;
    if (
      RunFolderDamagedError.isInstance(error) ||
      ManifestIntegrityError.isInstance(error) ||
      LedgerFileError.isInstance(error)
    )
      return EXIT_CODES.damagedRun;
    if (
      UsageError.isInstance(error) ||
      MissingApiKeyError.isInstance(error) ||
      InvalidArgumentError.isInstance(error) ||
      CatalogError.isInstance(error) ||
      ApiCallError.isInstance(error)
    ) {
      return EXIT_CODES.usage;
    }
    if (!ChiError.isInstance(error) && error instanceof Error && io.env.CHI_DEBUG === '1')
      io.stderr.write(`${error.stack ?? ''}\n`);
    return EXIT_CODES.runtimeFailure;
  }
}
