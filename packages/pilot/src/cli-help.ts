import { RUN_FILE_NAME } from '@chi/run';
import { exitCodesText } from './exit-codes';
import { experimentFlagHelp, experimentFlags } from './experiment-flags';
import { REGISTERED_EXPERIMENTS } from './experiments/registry';

/** The `chi` commands that have their own `--help` text. */
export const CLI_COMMANDS = [
  'pilot',
  'smoke',
  'serve',
  'score',
  'verify',
  'init',
  'export',
  'calibrate',
  'view',
  'templates',
] as const;
/** A `chi` command name. */
export type CliCommandName = (typeof CLI_COMMANDS)[number];

/** `chi <command> --help`: what the command does, its arguments and options. */
export const COMMAND_USAGE: Readonly<Record<CliCommandName, string>> = {
  pilot: `chi pilot — run the pilot and write its release (offline scripted roster by default)

Usage:
  chi pilot [options]
  chi pilot --config chi.config.json [options]   options from a file; flags given here win
  chi pilot --plan [options]                     print requests, worst-case USD and the precision
                                                 the planned worlds can reach; send nothing
  chi pilot --resume DIR [--concurrency N] [--no-release] [--allow-failed-smoke]
  chi pilot --protocol divergence-v0.1 [--plan] [--out DIR] [--replicates N] [--seed N] [--resamples N]
                           the longer divergence protocol, offline with its scripted baselines
                           (docs/protocol.md, "The divergence protocol v0.1"); --replicates = worlds (default 8)

Options:
  --config FILE            a pilot configuration file (JSON; see \`chi init\` and pilot-config.schema.json)
  --systems a,b,...        scripted systems (perfect, capacity-keeper, latest-wins, confabulator, abstainer;
                           wording-sensitive only when named)
  --live                   the four requested models on OpenRouter (needs OPENROUTER_API_KEY and --ceiling-usd)
  --models m@p,...         live OpenRouter models with provider allowlists, e.g. moonshotai/kimi-k3@moonshotai/mxfp4
  --base-url URL           an OpenAI-compatible endpoint; --models then lists its model names
  --evidence-class CLASS   what serves --base-url: live_model, or unverified_endpoint (default: an
                           undeclared endpoint is never labelled a live model)
  --price M=IN,OUT[,REQ]   declared price of model M (USD per million input/output tokens, USD per
                           request); one per model of --models, live runs only. Used by --plan and
                           every reservation
  --prices FILE            declared prices as JSON: {"models":{"M":{"inputUsdPerMillionTokens":0.2,
                           "outputUsdPerMillionTokens":0.6,"requestUsd":0}}}
  --accept-unbounded-spend run an endpoint model without a declared price: its spend is recorded but
                           the ceiling cannot protect it
  --replicates N           worlds (default 4 offline, 1 live)
${experimentFlagHelp(experimentFlags(REGISTERED_EXPERIMENTS))}
  --templates id,...       run only these registered experiments (default memory, history, behavior; opt-in goal-persistence, feedback-valence; see chi templates)
  --ceiling-usd X          USD ceiling, frozen in the manifest (required for live runs)
  --smoke-ceiling-usd X    separate USD ceiling of the smoke checks (default 1)
  --allow-failed-smoke     start a live run even if a smoke check failed
  --concurrency N          requests in flight (default 8)
  --out DIR                run folder (default ./chi-runs/<runId>)
  --seed N                 root seed of the world seeds (default 20260901)
  --resamples N            bootstrap resamples (default 2000)
  --no-release             stop after scoring; do not write the release
  --compare-to SYSTEM      paired comparisons of every system against SYSTEM (default: every pair),
                           frozen in the manifest
  --plan-from DIR          with --plan: size the precision table from a previous release's per-world
                           values instead of the binomial worst case
  --target-half-width X    with --plan: the interval half-width (and paired difference) the precision
                           table plans worlds for (default 0.1)
  --calibration FILE       a calibration from \`chi calibrate\`: h and CHI against it (frozen in the manifest)

Progress goes to stderr. stdout ends with a few headline numbers, then the release (or run)
folder as its last line.

${exitCodesText('pilot')}`,
  templates: `chi templates — the registered experiments by axis

Usage:
  chi templates

Prints what the seeds give, Specification v0.1's test counts per axis (4 R, 8 M, 6 C, 6 A, 6 I)
without any test's text, so none of those tests is implemented; then, per axis, every registered
experiment of ours that probes it (partial task indicators marked). Run a subset with
chi pilot --templates id,id,...

${exitCodesText('templates')}`,
  smoke: `chi smoke — one small request per live model through the real transport (excluded data)

Usage:
  chi smoke [--models m@p,...] [--base-url URL] [--ceiling-usd X] [--out DIR]

Options:
  --models m@p,...   live OpenRouter models with provider allowlists (default: the four protocol models)
  --base-url URL     an OpenAI-compatible endpoint instead of OpenRouter; --models lists its model names
  --ceiling-usd X    USD ceiling of the smoke checks (default 1)
  --out DIR          folder of ${RUN_FILE_NAME.smoke} (default ./chi-runs/smoke-<time>)

${exitCodesText('smoke')}`,
  serve: `chi serve — serve a scripted reference system as an OpenAI-compatible endpoint (loopback only)

Usage:
  chi serve --system NAME [--port P] [--host 127.0.0.1|::1|localhost] [--seed N]

Endpoints: POST /v1/chat/completions (JSON or stream: true), GET /v1/models, GET /v1/models/{id}.
The model name is scripted/NAME. stdout prints the base URL; Ctrl-C stops.

Options:
  --system NAME   perfect, capacity-keeper, latest-wins, confabulator or abstainer
  --port P        0-65535 (default 0: a free port)
  --host H        a loopback address (default 127.0.0.1)
  --seed N        seed of the system's declared noise (default 20260901)

${exitCodesText('serve')}`,
  score: `chi score — score a run folder again and write its release

Usage:
  chi score DIR [--no-release]

${exitCodesText('score')}`,
  verify: `chi verify — recompute every number of a release and compare

Usage:
  chi verify RELEASE_DIR [--json]

Exit codes: 0 every check passed; 1 a mismatch was found; 2 usage error.`,
  export: `chi export — write a run in another tool's format

Usage:
  chi export inspect RUN_DIR OUT_DIR

inspect: Inspect (UK AISI) evaluation logs in its JSON log format, one per system and experiment,
one sample per scored request (input, output, target, score), the model, configuration, usage
and timings in the header. Open them with: inspect view --log-dir OUT_DIR

${exitCodesText('export')}`,
  calibrate: `chi calibrate — build a frozen human calibration from a human-data file

Usage:
  chi calibrate DATA [--out FILE]

DATA is JSONL: a header line {"kind":"chi-human-data","schemaVersion":1,"synthetic":...,
"description":...}, then one row per participant, test and feature (docs/human-calibration.md).
Writes FILE (default DATA without .jsonl plus .calibration.json): per feature mu (mean) and s
(SD with n - 1), the participant sample, a content hash and an ID. Use it with
chi pilot --calibration FILE. Bad data is a usage error naming every bad line.

${exitCodesText('calibrate')}`,
  init: `chi init — write a starter pilot configuration file

Usage:
  chi init [FILE] [--force]

Writes FILE (default chi.config.json) with every pilot option at its default, a "$schema" for
editor completion and a "$comment" on each option. Edit it, then: chi pilot --config FILE.
--force replaces an existing file.

${exitCodesText('init')}`,
  view: `chi view — browse a run folder, a release or a folder of them, down to a single probe

Usage:
  chi view [DIR] [--port P]
  chi view [DIR] --bundle OUT

Serves a local web app on 127.0.0.1 (port 0, the default, picks a free one; the URL is printed on
stdout) until Ctrl-C: the summary; system -> world -> load, condition or history checkpoint ->
probe, with the question as sent, the expected answer and its trace, the model's reply, the
verdict and reason, the notebook the model had and the attempt log of the request; probes filter
by verdict reason. While a run is in progress the page shows its progress (requests by state,
spend against the ceiling, failures by class) and updates without a reload.

Options:
  --port P       port on 127.0.0.1 (default 0: any free port)
  --bundle OUT   write a static copy (OUT/index.html + OUT/data.js) that opens from the file
                 system with no server, instead of serving (one run or release)

${exitCodesText('view')}`,
};

/** True when a command line asks for help (`--help` or `-h` anywhere after the command). */
export function asksForHelp(args: readonly string[]): boolean {
  return args.includes('--help') || args.includes('-h');
}
