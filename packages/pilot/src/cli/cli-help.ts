import { OPT_IN_EXPERIMENT_IDS, REGISTERED_EXPERIMENTS } from '../experiments/registry';
import type { CliFlag } from './cli-flag';
import {
  COMMAND_FLAG_TABLES,
  divergenceFlagHelp,
  flagTableHelp,
  pilotFlagTable,
} from './cli-flags';
import { exitCodesText } from './exit-codes';
import { experimentFlags } from './experiment-flags';

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
  'merge',
  'study',
] as const;
/** A `chi` command name. */
export type CliCommandName = (typeof CLI_COMMANDS)[number];

/**
 * The flags the pilot's experiments declare on their parameter schemas (`--loads`, `--batch-size`,
 * `--no-controls`, `--no-history`, `--no-behavior`): parsed, documented and read from a
 * configuration file from these declarations, not from a hand-kept list.
 */
export const PILOT_EXPERIMENT_FLAGS = experimentFlags(REGISTERED_EXPERIMENTS);

/**
 * The flag table of every command (`cli-flags.ts`): what `parseCli` accepts and what every help
 * text lists, from one declaration.
 */
export const FLAG_TABLES: Readonly<Record<CliCommandName, readonly CliFlag[]>> = {
  pilot: pilotFlagTable(PILOT_EXPERIMENT_FLAGS, OPT_IN_EXPERIMENT_IDS),
  ...COMMAND_FLAG_TABLES,
};

/** The options section of a command's help, generated from its flag table. */
function options(command: CliCommandName): string {
  return `Options:\n${flagTableHelp(FLAG_TABLES[command])}`;
}

/**
 * The table of `--protocol divergence-v0.1`'s options, in `chi --help` and `chi pilot --help`
 * alike, generated from the pilot's flag table (the flags with a `divergence` field: the ones the
 * parser lets through with `--protocol`; a configuration file selecting the protocol takes their
 * keys).
 */
const DIVERGENCE_OPTIONS = `Options of --protocol divergence-v0.1 (as above unless noted; any other is refused, as is a
configuration file's key for one):
${divergenceFlagHelp(FLAG_TABLES.pilot)}`;

/** `chi <command> --help`: what the command does, its arguments and options. */
export const COMMAND_USAGE: Readonly<Record<CliCommandName, string>> = {
  pilot: `chi pilot — run the pilot and write its release (offline scripted roster by default)

Usage:
  chi pilot [options]
  chi pilot --config chi.config.json [options]   options from a file; flags given here win
  chi pilot --plan [options]                     print requests, worst-case USD and the precision
                                                 the planned worlds can reach; send nothing
  chi pilot --resume DIR [--concurrency N] [--no-release] [--allow-failed-smoke]
  chi pilot --protocol divergence-v0.1 [its options, below]
                           the longer divergence protocol, offline with its scripted baselines
                           (docs/protocol.md, "The divergence protocol v0.1")

${options('pilot')}

${DIVERGENCE_OPTIONS}

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

${options('smoke')}

${exitCodesText('smoke')}`,
  serve: `chi serve — serve a scripted reference system as an OpenAI-compatible endpoint (loopback only)

Usage:
  chi serve --system NAME [--port P] [--host 127.0.0.1|::1|localhost] [--seed N]

Endpoints: POST /v1/chat/completions (JSON or stream: true), GET /v1/models, GET /v1/models/{id}.
The model name is scripted/NAME. stdout prints the base URL; Ctrl-C stops.

A scripted system answers only this toolkit's prompts (the REQUEST block of the pilot's prompts):
any other prompt, an ordinary chat message included, gets HTTP 422 unreadable_prompt. It is a
reference endpoint for testing clients and the HTTP transport, not a chat model. max_tokens cuts
the reply (finish_reason length); n > 1 is a 400 naming n.

${options('serve')}

${exitCodesText('serve')}`,
  score: `chi score — score a run folder again and write its release

Usage:
  chi score DIR [--no-release]

${options('score')}

${exitCodesText('score')}`,
  verify: `chi verify — recompute every number of a release and compare

Usage:
  chi verify RELEASE_DIR [--json]

Exit codes: 0 every check passed; 1 a mismatch was found (a damaged release, pilot or
divergence, is listed as mismatches naming each file); 2 usage error; 130 Ctrl-C, SIGTERM or
SIGHUP.`,
  export: `chi export — write a run in another tool's format

Usage:
  chi export inspect RUN_DIR OUT_DIR

inspect: Inspect (UK AISI) evaluation logs in its JSON log format, one per system and experiment,
one sample per scored request (input, output, target, score), the model, configuration, usage
and timings in the header. Open them with: inspect view --log-dir OUT_DIR

${exitCodesText('export')}`,
  calibrate: `chi calibrate — build a frozen human calibration from a human-data file

Usage:
  chi study init|run|merge|add|status|report DIR  a study of sessions over days or weeks (chi study --help)
  chi calibrate DATA [--out FILE]

DATA is JSONL: a header line {"kind":"chi-human-data","schemaVersion":1,"synthetic":...,
"description":...}, then one row per participant, test and feature (docs/human-calibration.md).
Writes FILE (default DATA without .jsonl plus .calibration.json): per feature mu (mean) and s
(SD with n - 1), the participant sample, a content hash and an ID. Use it with
chi pilot --calibration FILE. Bad data is a usage error naming every bad line.

${options('calibrate')}

${exitCodesText('calibrate')}`,
  init: `chi init — write a starter pilot configuration file

Usage:
  chi init [FILE] [--force]

Writes FILE (default chi.config.json) with every pilot option at its default, a "$schema" for
editor completion and a "$comment" on each option. Edit it, then: chi pilot --config FILE.

${options('init')}

${exitCodesText('init')}`,
  merge: `chi merge — one run folder and release from the folders of a sharded run

Usage:
  chi merge SHARD_DIR... --out DIR

Checks that the folders are the shards of one run (chi pilot --shard i/n with the same options
and --created-at): one frozen manifest apart from its shard field, every shard 1..n exactly once,
each folder intact. Writes DIR as the unsharded run's folder (its manifest, its whole plan, every
shard's records) and DIR/release, whose derived files equal an unsharded run's byte for byte;
chi verify DIR/release recomputes them. A missing, duplicated or foreign shard is refused, named.

${options('merge')}

${exitCodesText('merge')}`,
  study: `chi study — a study: sessions days or weeks apart that continue the same instances

Usage:
  chi study init DIR [options]   write DIR/study.json (edit it before the first session)
  chi study run DIR [--now]      run the next due session as DIR/sessions/s<k> (or resume it);
                                 nothing due: exit 0 and a line saying when the next one is
  chi study status DIR           sessions done and due, spend against the ceilings
  chi study report DIR           retention against delay and drift across sessions
  chi study freeze DIR           freeze the study now (before its first session's shards)
  chi study run DIR --shard i/n  run shard i of n of the due session (on any machine), as
                                 DIR/sessions/s<k>.shard-<i>-of-<n>, under its share of the ceiling
  chi study merge DIR            merge the session's shard folders into DIR/sessions/s<k>
  chi study add DIR --systems a  the study gains systems after its first session: a cohort
                                 DIR/cohorts/<name> with the same worlds and schedule from its
                                 own day 0 (run it with chi study run DIR/cohorts/<name>)

Safe to call from cron, a systemd timer, a GitHub Actions schedule or a Kubernetes CronJob:
one runner at a time holds the study's lock (exit 6). Every later session asks the first
session's memory probes from the notebooks the previous session ended with, hash-linked to
them: an edited or swapped state is refused (exit 5). A system in study.json is a scripted
name or a live system, declared as chi pilot declares one: { "model": "m@provider" } on
OpenRouter or { "model": "m", "baseUrl": URL, "price": {...} }, with "memory": "system" for a
system that keeps its own memory (its instance ID and exported state carry across sessions).
Keys come from the environment only (OPENROUTER_API_KEY, OPENAI_API_KEY). See
docs/protocol.md, "Studies".

${options('study')}

${exitCodesText('study')}`,
  view: `chi view — browse a run folder, a release or a folder of them, down to a single probe

Usage:
  chi view [DIR] [--port P]
  chi view [DIR] --bundle OUT
  chi view RUN_A RUN_B [--port P]
  chi view RUN_A RUN_B --bundle OUT
  chi view STUDY_DIR [--port P | --bundle OUT]

Serves a local web app on 127.0.0.1 (port 0, the default, picks a free one; the URL is printed on
stdout) until Ctrl-C: the summary; system -> world -> load, condition or history checkpoint ->
probe, with the question as sent, the expected answer and its trace, the model's reply, the
verdict and reason, the notebook the model had and the attempt log of the request; probes filter
by verdict reason. While a run is in progress the page shows its progress (requests by state,
spend against the ceiling, failures by class) and updates without a reload.

With two released runs (or from a folder's index, "Compare two runs"), the comparison page pairs
them by world seed: per world each run's Q_M per load, EIMC and behavior indicators, B − A, and the
mean difference with a 95% cluster-bootstrap interval over the paired worlds; it refuses runs
that share no world seed and says when their configurations or models differ. Two systems of one
run compare the same way: the summary's "Compare two systems" form (or compare?sa=X&sb=Y).
With --bundle, the same pages are written as static files (a run's bundle holds a page per pair
of its systems; RUN_A RUN_B one page per system both runs have).

A study folder (chi study init) opens on its study page: the study ID and frozen manifest hash,
the schedule on a time axis in days since s0 started (each session's due time, its actual start,
early --now runs labelled, sessions not run yet as due or not due), each session's blocks complete
and spend against the per-session and total ceilings, a possible provider-side model change, and
the CHIS trajectory (Q_M and retention by session, with intervals over worlds) exactly as
study-report.json holds it (chi study report DIR writes it; the page says so when it is missing
or older than the last session). Its data is at api/study; each session opens under run/s<k>/,
and consecutive sessions compare paired by world. --bundle writes the page with every session's
viewer and those comparisons.

${options('view')}

${exitCodesText('view')}`,
};

/** The usage text printed by `chi help`. */
export const USAGE = `chi — the CHI/CHIS longitudinal model pilot

Usage:
  chi pilot [options]              run the pilot (offline scripted roster by default) and write the release
  chi pilot --plan [options]       print requests per system and the worst-case reserved USD; send nothing
  chi pilot --resume DIR           resume an interrupted run (never re-sends a paid request)
  chi pilot --protocol divergence-v0.1 [--plan]   the longer divergence protocol (scripted baselines offline;
                                                  live with --live/--base-url --models and --ceiling-usd)
  chi smoke [options]              one small request per live model through the real transport (excluded data)
  chi serve --system NAME [--port P] serve a scripted system (it answers only this toolkit's prompts)
                                   as an OpenAI-compatible endpoint on 127.0.0.1
  chi score DIR                    score a run folder again and write its release
  chi verify RELEASE_DIR [--json]  recompute every number of a release
  chi init [FILE]                  write a starter configuration file (default chi.config.json)
  chi export inspect RUN OUT       write a run as Inspect evaluation logs (inspect view --log-dir OUT)
  chi view [DIR] [--port P]        browse a run folder, release or folder of them on 127.0.0.1, down
                                   to each probe; live progress while a run is in progress
  chi view [DIR] --bundle OUT      write a static copy of the viewer that opens with no server
  chi view RUN_A RUN_B [--bundle OUT]   compare two released runs side by side, paired by world
  chi view STUDY_DIR [--bundle OUT]    a study: sessions on a time axis, completeness, spend, trajectory
  chi <command> --help             the options of one command; chi --version prints the version
  chi merge SHARD_DIR... --out DIR one run folder and release from a sharded run (chi pilot --shard i/n)
  chi calibrate DATA [--out FILE]  build a frozen human calibration from a human-data JSONL file
  chi templates                    the registered experiments by axis, and which of the panel's 30
                                   tests they implement

Pilot options (chi pilot --help lists the same):
${flagTableHelp(FLAG_TABLES.pilot)}

${DIVERGENCE_OPTIONS}

${exitCodesText()}
(chi verify: 0 every check passed, 1 a mismatch was found, 2 usage error; see chi verify --help)`;

/** True when a command line asks for help (`--help` or `-h` anywhere after the command). */
export function asksForHelp(args: readonly string[]): boolean {
  return args.includes('--help') || args.includes('-h');
}
