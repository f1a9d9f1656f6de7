import { z } from 'zod';
import { SeedSchema, Sha256Schema } from './primitives';

const positive = (what: string) =>
  z.int({ error: `expected an integer (${what})` }).min(1, { error: `expected ${what} >= 1` });

/** An integer in `min`-`max`, its errors naming `what` (an experiment's count option). */
const boundedCount = (min: number, max: number, what: string) =>
  z
    .int({ error: `expected an integer (${what})` })
    .min(min, { error: `expected ${what} in ${min}-${max}` })
    .max(max, { error: `expected ${what} in ${min}-${max}` });

/** A price declared for a model on an endpoint without a price catalog (`--price`, `--prices`). */
export const DeclaredPriceSchema = z.strictObject({
  inputUsdPerMillionTokens: z.number().finite().min(0).describe('USD per million input tokens.'),
  outputUsdPerMillionTokens: z
    .number()
    .finite()
    .min(0)
    .describe('USD per million output tokens (reasoning included).'),
  requestUsd: z.number().finite().min(0).optional().describe('USD per request; 0 when absent.'),
});
/** A declared price. */
export type DeclaredPrice = z.infer<typeof DeclaredPriceSchema>;

/** A live model as the pilot names it: `model`, or `model@provider[+provider...]` (an OpenRouter allowlist). */
export const LiveModelNameSchema = z.string().regex(/^[^@\s,]+(@[^@\s,+]+(\+[^@\s,+]+)*)?$/, {
  error: 'expected "model" or "model@provider[+provider...]"',
});

/** The base URL of an OpenAI-compatible endpoint, as the pilot takes it (`--base-url`). */
export const EndpointUrlSchema = z
  .string()
  .regex(/^https?:\/\/\S+$/, { error: 'expected an http(s) URL like http://127.0.0.1:8000/v1' });

/** Who holds a system's memory (`--memory`): the runner's notebook, or the system itself. */
export const MemoryPolicySchema = z.enum(['notebook', 'system']);

/**
 * The options of a pilot run (`chi pilot`) that a configuration file may set. Every field is
 * optional: an absent field keeps the command's default, and a flag on the command line wins
 * over the file. The same names as the flags, in camelCase (`--ceiling-usd` is `ceilingUsd`).
 */
export const PilotOptionsSchema = z.strictObject({
  protocol: z
    .literal('divergence-v0.1')
    .optional()
    .describe(
      'Run the divergence protocol instead of the default pilot (as --protocol): its options are live, models and baseUrl (its own scripted baselines when none), replicates (worlds, default 8), seed, resamples, out, ceilingUsd, smokeCeilingUsd, allowFailedSmoke, concurrency, prices and acceptUnboundedSpend.',
    ),
  systems: z
    .array(z.string().min(1))
    .min(1)
    .optional()
    .describe(
      'Scripted reference systems of an offline run: perfect, capacity-keeper, latest-wins, confabulator, abstainer. Not with live, models or baseUrl.',
    ),
  memory: MemoryPolicySchema.optional().describe(
    'Who holds the memory (as --memory): notebook (default; the runner carries a capped notebook in every prompt) or system (the system keeps its own memory; sessions go without notes, each request names its instance and session in X-Chi-Instance / X-Chi-Session). The reference memory systems (window, keyword-store, leaky-store) are always system.',
  ),
  live: z
    .boolean()
    .optional()
    .describe(
      'Run the four protocol models on OpenRouter (needs OPENROUTER_API_KEY in the environment and ceilingUsd).',
    ),
  models: z
    .array(LiveModelNameSchema)
    .min(1)
    .optional()
    .describe(
      'Live models as "model@provider[+provider...]" (an OpenRouter provider allowlist), or plain model names of the baseUrl endpoint.',
    ),
  baseUrl: EndpointUrlSchema.optional().describe(
    'An OpenAI-compatible endpoint; models then lists its model names.',
  ),
  replicates: positive('replicates')
    .optional()
    .describe('Worlds (independent replicates); default 4 offline, 1 live.'),
  loads: z
    .union([z.array(positive('a load')).min(1), z.literal('v0.1')])
    .optional()
    .describe(
      'Memory loads N, each >= 32 (default [32, 64, 128, 256]); "v0.1" = [100, 300, 1000, 3000, 10000].',
    ),
  batchSize: positive('batchSize')
    .nullable()
    .optional()
    .describe('Probes per probe request; null (the default) asks all in one request.'),
  controls: z
    .boolean()
    .optional()
    .describe('Run the oracle and empty-notebook controls (default true).'),
  transcriptReplay: z
    .boolean()
    .optional()
    .describe(
      'Also ask every memory load from the stored transcript of the encode session, uncapped and costed (default false).',
    ),
  probeWordings: z
    .boolean()
    .optional()
    .describe(
      'Also ask every behavioral item under its declared equivalent wording; the release reports per-feature agreement (default false).',
    ),
  goalSteps: boundedCount(2, 8, 'goal-persistence steps')
    .optional()
    .describe(
      'Steps per goal-persistence trial, 2-8 (default 4); only with templates naming goal-persistence (as --goal-steps).',
    ),
  valenceChoices: boundedCount(1, 12, 'feedback-valence choices')
    .optional()
    .describe(
      'Later choices per feedback-valence trial, 1-12 (default 4); only with templates naming feedback-valence (as --valence-choices).',
    ),
  history: z.boolean().optional().describe('Run the history experiment (default true).'),
  behavior: z.boolean().optional().describe('Run the behavior experiment (default true).'),
  templates: z
    .array(z.string().min(1))
    .min(1)
    .optional()
    .describe(
      'Run only these registered experiments, by ID (as --templates; `chi templates` lists them); every one by default.',
    ),
  ceilingUsd: z
    .number()
    .min(0)
    .optional()
    .describe('USD ceiling, frozen in the manifest; required for live runs.'),
  smokeCeilingUsd: z
    .number()
    .min(0)
    .optional()
    .describe('Separate USD ceiling of the smoke checks (default 1).'),
  allowFailedSmoke: z
    .boolean()
    .optional()
    .describe('Start a live run even if a smoke check failed (default false).'),
  concurrency: positive('concurrency').optional().describe('Requests in flight (default 8).'),
  out: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Run folder, relative to this file (default ./chi-runs/<runId> under the current directory).',
    ),
  seed: SeedSchema.optional().describe('Root seed of the world seeds (default 20260901).'),
  resamples: positive('resamples').optional().describe('Bootstrap resamples (default 2000).'),
  release: z.boolean().optional().describe('Write the release after scoring (default true).'),
  calibration: z
    .string()
    .min(1)
    .optional()
    .describe(
      'A calibration file written by `chi calibrate`, relative to this file: h and CHI are computed against it and its ID and hash are frozen in the manifest (default: none, so h and CHI are null).',
    ),
  prices: z
    .record(z.string().min(1), DeclaredPriceSchema)
    .optional()
    .describe(
      'Declared prices by model (as --price): used by the plan and every reservation of an endpoint without a catalog.',
    ),
  acceptUnboundedSpend: z
    .boolean()
    .optional()
    .describe(
      'Run an endpoint model without a declared price: its spend is recorded but the ceiling cannot protect it (default false).',
    ),
});
/** The options of a pilot run that a configuration file may set. */
export type PilotOptions = z.infer<typeof PilotOptionsSchema>;

/**
 * A `chi pilot --config` file: the pilot options plus `$schema` (for editor completion) and
 * `$comment` (free text, one string or one string per line; JSON has no comments).
 *
 * @example
 * ```json
 * { "$schema": "./node_modules/@chi/spec/schemas/pilot-config.schema.json", "replicates": 2, "loads": [32, 64] }
 * ```
 */
export const PilotConfigSchema = PilotOptionsSchema.extend({
  $schema: z.string().optional().describe('The JSON Schema of this file, for editor completion.'),
  $comment: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .describe('Free text for people; ignored by chi.'),
});
/** A `chi pilot --config` file. */
export type PilotConfig = z.infer<typeof PilotConfigSchema>;

/**
 * The configuration a run was started with, frozen in its manifest: the options after the file
 * and the flags were merged (without `out`, which says where, not what), and the SHA-256 of the
 * configuration file's bytes when one was given.
 */
export const RunConfigurationSchema = z.strictObject({
  configFileSha256: Sha256Schema.nullable(),
  options: PilotOptionsSchema.omit({ out: true }),
});
/** The configuration a run was started with. */
export type RunConfiguration = z.infer<typeof RunConfigurationSchema>;
