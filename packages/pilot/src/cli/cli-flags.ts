import type { ParseArgsConfig } from 'node:util';
import { RUN_FILE_NAME } from '@chi/run/internal';
import { STUDY_FLAGS } from '../study/study-flags';
import type { CliFlag } from './cli-flag';
import type { ExperimentFlag } from './experiment-flags';

/** The help column: `  --flag PLACEHOLDER` is padded to this width before its help. */
const HELP_COLUMN = 27;

/** The options of `chi pilot` that precede the experiments' own flags, in help order. */
const PILOT_FLAGS_BEFORE: readonly CliFlag[] = [
  {
    name: 'config',
    type: 'string',
    placeholder: 'FILE',
    help: 'options from a configuration file (JSON; see chi init and pilot-config.schema.json);\nflags given here win',
    divergence: {},
  },
  {
    name: 'plan',
    type: 'boolean',
    help: 'print requests, worst-case USD and the precision the planned worlds can reach;\nsend nothing',
    divergence: {},
  },
  {
    name: 'resume',
    type: 'string',
    placeholder: 'DIR',
    help: 'resume an interrupted run (never re-sends a paid request); only --concurrency,\n--no-release and --allow-failed-smoke apply',
  },
  {
    name: 'protocol',
    type: 'string',
    placeholder: 'NAME',
    help: 'divergence-v0.1: the longer divergence protocol (docs/protocol.md), offline with its\nscripted baselines or live with --live/--base-url --models and --ceiling-usd;\nits worlds are --replicates (default 8)',
    configKey: 'protocol',
    divergence: {},
  },
  {
    name: 'systems',
    type: 'string',
    placeholder: 'a,b,...',
    help: 'scripted systems (perfect, capacity-keeper, latest-wins, confabulator,\nabstainer; imitator needs --calibration and joins the default set with it;\nwording-sensitive, for --probe-wordings, only when named; reference memory\nsystems window, keyword-store, leaky-store: memory policy system)',
    configKey: 'systems',
  },
  {
    name: 'live',
    type: 'boolean',
    help: 'the four requested models on OpenRouter (needs OPENROUTER_API_KEY and --ceiling-usd)',
    configKey: 'live',
    divergence: {},
  },
  {
    name: 'models',
    type: 'string',
    placeholder: 'm@p,...',
    help: 'live OpenRouter models with provider allowlists, e.g. moonshotai/kimi-k3@moonshotai/mxfp4',
    configKey: 'models',
    divergence: {},
  },
  {
    name: 'base-url',
    type: 'string',
    placeholder: 'URL',
    help: 'an OpenAI-compatible endpoint; --models then lists its model names',
    configKey: 'baseUrl',
    divergence: {},
  },
  {
    name: 'memory',
    type: 'string',
    placeholder: 'POLICY',
    defaultText: 'notebook',
    help: 'who holds the memory: notebook (the runner carries capped notes) or system\n(the system keeps its own; requests carry X-Chi-Instance / X-Chi-Session)',
    configKey: 'memory',
    divergence: {},
  },
  {
    name: 'evidence-class',
    type: 'string',
    placeholder: 'CLASS',
    help: 'what serves --base-url: live_model, or unverified_endpoint (default: an\nundeclared endpoint is never labelled a live model)',
    divergence: {},
  },
  {
    name: 'price',
    type: 'string',
    multiple: true,
    placeholder: 'M=IN,OUT[,REQ]',
    help: 'declared price of model M (USD per million input/output tokens, USD per\nrequest); one per model of --models, live runs only. Used by --plan and\nevery reservation',
    configKey: 'prices',
    divergence: {},
  },
  {
    name: 'prices',
    type: 'string',
    placeholder: 'FILE',
    help: 'declared prices as JSON: {"models":{"M":{"inputUsdPerMillionTokens":0.2,\n"outputUsdPerMillionTokens":0.6,"requestUsd":0}}}',
    divergence: {},
  },
  {
    name: 'accept-unbounded-spend',
    type: 'boolean',
    help: 'run an endpoint model without a declared price: its spend is recorded but\nthe ceiling cannot protect it',
    configKey: 'acceptUnboundedSpend',
    divergence: {},
  },
  {
    name: 'replicates',
    type: 'string',
    placeholder: 'N',
    range: { min: 1, max: 100 },
    defaultText: '4 offline, 1 live',
    help: 'worlds',
    configKey: 'replicates',
    divergence: { note: 'worlds, default 8' },
  },
];

/** The options of `chi pilot` after the experiments' own flags, in help order. */
const PILOT_FLAGS_AFTER: readonly CliFlag[] = [
  {
    name: 'templates',
    type: 'string',
    placeholder: 'id,...',
    // completed with the registry's opt-in experiments by `pilotFlagTable`
    help: 'run only these registered experiments (default memory, history, behavior; see chi templates)',
    configKey: 'templates',
  },
  {
    name: 'ceiling-usd',
    type: 'string',
    placeholder: 'X',
    range: { min: 0, max: 100_000 },
    help: 'USD ceiling, required for live runs and frozen in the manifest',
    configKey: 'ceilingUsd',
    divergence: {},
  },
  {
    name: 'smoke-ceiling-usd',
    type: 'string',
    placeholder: 'X',
    range: { min: 0, max: 1_000 },
    defaultText: '1',
    help: 'separate USD ceiling of the smoke checks',
    configKey: 'smokeCeilingUsd',
    divergence: {},
  },
  {
    name: 'allow-failed-smoke',
    type: 'boolean',
    help: 'start a live run even if a smoke check failed',
    configKey: 'allowFailedSmoke',
    divergence: {},
  },
  {
    name: 'concurrency',
    type: 'string',
    placeholder: 'N',
    range: { min: 1, max: 64 },
    defaultText: '8',
    help: 'requests in flight',
    configKey: 'concurrency',
    divergence: {},
  },
  {
    name: 'out',
    type: 'string',
    placeholder: 'DIR',
    defaultText: './chi-runs/<runId>',
    help: 'run folder',
    configKey: 'out',
    divergence: {},
  },
  {
    name: 'seed',
    type: 'string',
    placeholder: 'N',
    range: { min: 0, max: 4_294_967_295 },
    defaultText: '20260901',
    help: 'root seed of the world seeds',
    configKey: 'seed',
    divergence: {},
  },
  {
    name: 'resamples',
    type: 'string',
    placeholder: 'N',
    range: { min: 1, max: 100_000 },
    defaultText: '2000',
    help: 'bootstrap resamples',
    configKey: 'resamples',
    divergence: {},
  },
  {
    name: 'no-release',
    type: 'boolean',
    help: 'stop after scoring; do not write the release',
    configKey: 'release',
  },
  {
    name: 'compare-to',
    type: 'string',
    placeholder: 'SYSTEM',
    defaultText: 'every pair',
    help: 'paired comparisons of every system against SYSTEM, frozen in the manifest',
  },
  {
    name: 'plan-from',
    type: 'string',
    placeholder: 'DIR',
    help: "with --plan: size the precision table from a previous release's per-world\nvalues instead of the binomial worst case",
  },
  {
    name: 'target-half-width',
    type: 'string',
    placeholder: 'X',
    defaultText: '0.1',
    help: 'with --plan: the interval half-width (and paired difference) the precision\ntable plans worlds for, in (0, 1]',
  },
  {
    name: 'calibration',
    type: 'string',
    placeholder: 'FILE',
    help: 'a calibration from `chi calibrate`: h and CHI against it (frozen in the manifest)',
    configKey: 'calibration',
  },
  {
    name: 'shard',
    type: 'string',
    placeholder: 'i/n',
    help: 'run shard i of n (1-based): whole (world seed, system) units, its share of the\nceiling; no release (chi merge writes it); needs --created-at',
  },
  {
    name: 'created-at',
    type: 'string',
    placeholder: 'ISO',
    help: "the manifest's creation time: give every shard of a run the same instant",
  },
];

/** An experiment's own flag as a row of the table (its help already states range and default). */
function experimentRow(flag: ExperimentFlag): CliFlag {
  const bare = flag.kind === 'negation' || flag.kind === 'switch';
  return {
    name: flag.flag,
    type: bare ? 'boolean' : 'string',
    ...(flag.placeholder === undefined ? {} : { placeholder: flag.placeholder }),
    help: flag.help,
    configKey: flag.option,
  };
}

/**
 * The rows of the flags experiments declare on their parameter schemas: the switches (opt-in
 * conditions) after the others, each group in registry order.
 */
export function experimentFlagRows(experimentFlags: readonly ExperimentFlag[]): CliFlag[] {
  return [
    ...experimentFlags.filter((flag) => flag.kind !== 'switch'),
    ...experimentFlags.filter((flag) => flag.kind === 'switch'),
  ].map(experimentRow);
}

/**
 * The flag table of `chi pilot`: its own options around the flags the registered experiments
 * declare on their parameter schemas.
 */
export function pilotFlagTable(
  experimentFlags: readonly ExperimentFlag[],
  optInIds: readonly string[] = [],
): readonly CliFlag[] {
  const after = PILOT_FLAGS_AFTER.map((flag) =>
    flag.name === 'templates' ? { ...flag, help: templatesHelp(optInIds) } : flag,
  );
  return [...PILOT_FLAGS_BEFORE, ...experimentFlagRows(experimentFlags), ...after];
}

/** The help of `--templates`, naming the registry's opt-in experiments (`chi templates` lists all). */
function templatesHelp(optInIds: readonly string[]): string {
  const optIn = optInIds.length === 0 ? '' : `;\nopt-in ${optInIds.join(', ')}`;
  return `run only these registered experiments (default memory, history, behavior${optIn}; see chi templates)`;
}

/** The flag tables of the commands other than `chi pilot` (which depends on the registry). */
export const COMMAND_FLAG_TABLES = {
  smoke: [
    {
      name: 'models',
      type: 'string',
      placeholder: 'm@p,...',
      defaultText: 'the four protocol models',
      help: 'live OpenRouter models with provider allowlists',
    },
    {
      name: 'base-url',
      type: 'string',
      placeholder: 'URL',
      help: 'an OpenAI-compatible endpoint instead of OpenRouter; --models lists its model names',
    },
    {
      name: 'ceiling-usd',
      type: 'string',
      placeholder: 'X',
      range: { min: 0, max: 100_000 },
      defaultText: '1',
      help: 'USD ceiling of the smoke checks',
    },
    {
      name: 'out',
      type: 'string',
      placeholder: 'DIR',
      defaultText: './chi-runs/smoke-<time>',
      help: `folder of ${RUN_FILE_NAME.smoke}`,
    },
  ],
  serve: [
    {
      name: 'system',
      type: 'string',
      placeholder: 'NAME',
      help: 'perfect, capacity-keeper, latest-wins, confabulator or abstainer (required)',
    },
    {
      name: 'port',
      type: 'string',
      placeholder: 'P',
      range: { min: 0, max: 65_535 },
      defaultText: '0: a free port, printed in the URL',
      help: 'port',
    },
    {
      name: 'host',
      type: 'string',
      placeholder: 'H',
      defaultText: '127.0.0.1',
      help: 'a loopback address: 127.0.0.1, ::1 or localhost',
    },
    {
      name: 'seed',
      type: 'string',
      placeholder: 'N',
      range: { min: 0, max: 4_294_967_295 },
      defaultText: '20260901',
      help: "seed of the system's declared noise",
    },
  ],
  score: [{ name: 'no-release', type: 'boolean', help: 'score only; do not write the release' }],
  verify: [{ name: 'json', type: 'boolean', help: 'print the checks as JSON' }],
  init: [{ name: 'force', type: 'boolean', help: 'replace an existing file' }],
  export: [],
  calibrate: [
    {
      name: 'out',
      type: 'string',
      placeholder: 'FILE',
      defaultText: 'DATA without .jsonl plus .calibration.json',
      help: 'where the calibration is written',
    },
  ],
  view: [
    {
      name: 'port',
      type: 'string',
      placeholder: 'P',
      range: { min: 0, max: 65_535 },
      defaultText: '0: any free port',
      help: 'port on 127.0.0.1',
    },
    {
      name: 'bundle',
      type: 'string',
      placeholder: 'OUT',
      help: 'write a static copy that opens from the file system with no server, instead of\nserving: of one run, OUT/index.html + OUT/data.js (+ compare-I-J.html per pair of\nsystems); of RUN_A RUN_B, OUT/index.html (+ compare-K.html per further system)',
    },
  ],
  templates: [],
  merge: [
    {
      name: 'out',
      type: 'string',
      placeholder: 'DIR',
      help: 'the merged run folder (must not exist or be empty); its release is DIR/release',
    },
  ],
  study: STUDY_FLAGS,
} as const satisfies Record<string, readonly CliFlag[]>;

/** The `node:util` `parseArgs` options of a flag table. */
export function parseArgsOptions(
  flags: readonly CliFlag[],
): NonNullable<ParseArgsConfig['options']> {
  return Object.fromEntries(
    flags.map((flag) => [
      flag.name,
      flag.multiple === true ? { type: flag.type, multiple: true } : { type: flag.type },
    ]),
  );
}

/** The help text of one flag: its description, then its range and default. */
function flagDescription(flag: CliFlag): string {
  const range = flag.range === undefined ? '' : `, ${flag.range.min}-${flag.range.max}`;
  const fallback = flag.defaultText === undefined ? '' : ` (default ${flag.defaultText})`;
  return `${flag.help}${range}${fallback}`;
}

/**
 * The help lines of a flag table, aligned: `  --flag PLACEHOLDER` padded to one column, its
 * description's continuation lines indented under the first.
 */
export function flagTableHelp(flags: readonly CliFlag[]): string {
  return flags
    .map((flag) => {
      const usage = `  --${flag.name}${flag.placeholder === undefined ? '' : ` ${flag.placeholder}`}`;
      const help = flagDescription(flag)
        .split('\n')
        .join(`\n${' '.repeat(HELP_COLUMN)}`);
      return `${usage.length < HELP_COLUMN ? usage.padEnd(HELP_COLUMN) : `${usage} `}${help}`;
    })
    .join('\n');
}

/** The flags of `chi pilot` that `--protocol divergence-v0.1` takes, in help order. */
export function divergenceFlags(pilotFlags: readonly CliFlag[]): readonly CliFlag[] {
  return pilotFlags.filter((flag) => flag.divergence !== undefined);
}

/**
 * The table of `chi pilot --protocol divergence-v0.1`'s options in both help texts: each flag with
 * its placeholder and, where the protocol reads it differently, what it means there; wrapped to
 * the help's width. Generated from the flags' `divergence` field, as the parser's refusal is.
 */
export function divergenceFlagHelp(pilotFlags: readonly CliFlag[]): string {
  const entries = divergenceFlags(pilotFlags)
    .filter((flag) => flag.name !== 'protocol')
    .map(
      (flag) =>
        `--${flag.name}${flag.placeholder === undefined ? '' : ` ${flag.placeholder}`}${flag.divergence?.note === undefined ? '' : ` (${flag.divergence.note})`}`,
    );
  const lines: string[] = [];
  for (const entry of entries) {
    const last = lines.at(-1);
    if (last !== undefined && last.length + entry.length + 2 <= 100)
      lines[lines.length - 1] = `${last}, ${entry}`;
    else {
      if (last !== undefined) lines[lines.length - 1] = `${last},`;
      lines.push(`  ${entry}`);
    }
  }
  return lines.join('\n');
}

/** The flag of a table by name, or undefined. */
export function findFlag(flags: readonly CliFlag[], name: string): CliFlag | undefined {
  return flags.find((flag) => flag.name === name);
}
