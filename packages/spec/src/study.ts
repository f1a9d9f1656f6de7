import { z } from 'zod';
import {
  DeclaredPriceSchema,
  EndpointUrlSchema,
  LiveModelNameSchema,
  MemoryPolicySchema,
} from './pilot-config';
import { IsoTimeSchema, SeedSchema, Sha256Schema, UsdSchema } from './primitives';

/** The smallest memory load a study may declare (8 probes in each of six strata). */
const SMALLEST_STUDY_LOAD = 32;

/** One session of a study's schedule: its earliest start, as a delay after the previous session. */
export const StudySessionScheduleSchema = z.strictObject({
  afterPreviousDays: z
    .number({ error: 'expected a number of days' })
    .finite()
    .min(0, { error: 'expected a number of days >= 0' })
    .describe(
      "Earliest start of this session, in days after the previous session finished (the first session's must be 0: it is due at once).",
    ),
});
/** One session of a study's schedule. */
export type StudySessionSchedule = z.infer<typeof StudySessionScheduleSchema>;

/**
 * A live system of a study, declared as the pilot declares one (`chi pilot --models`,
 * `--base-url`, `--price`, `--memory`): an OpenRouter model with its provider allowlist
 * (`model@provider[+provider...]`), or a model of an OpenAI-compatible endpoint (`baseUrl`). Its
 * key is read from the environment only (`OPENROUTER_API_KEY`, or `OPENAI_API_KEY` for an
 * endpoint when set), never written.
 */
export const StudyLiveSystemSchema = z
  .strictObject({
    id: z
      .string()
      .regex(/^[a-z0-9._-]+$/, { error: 'expected a system ID: [a-z0-9._-]+' })
      .optional()
      .describe(
        "The system's ID in the study (default: derived from the model name, as chi pilot does).",
      ),
    model: LiveModelNameSchema.describe(
      'The model: "model@provider[+provider...]" on OpenRouter (the allowlist is required), or the plain model name of the baseUrl endpoint.',
    ),
    baseUrl: EndpointUrlSchema.optional().describe(
      'An OpenAI-compatible endpoint (as --base-url); absent: OpenRouter.',
    ),
    price: DeclaredPriceSchema.optional().describe(
      "The model's declared price (as --price): OpenRouter reserves with the larger of it and the catalog's; an endpoint needs one for the ceiling to bound it.",
    ),
    acceptUnboundedSpend: z
      .boolean()
      .optional()
      .describe(
        'Run an endpoint model without a declared price: its spend is recorded but the ceilings cannot protect it (default false).',
      ),
    memory: MemoryPolicySchema.optional().describe(
      'Who holds the memory (as --memory): notebook (default; the runner carries the notebooks from session to session) or system (the system keeps its own memory under a stable instance ID across sessions).',
    ),
  })
  .describe('A live system.');
/** A live system of a study. */
export type StudyLiveSystem = z.infer<typeof StudyLiveSystemSchema>;

/** A study's system: a scripted system's name, or a live system. */
export const StudySystemSchema = z.union([z.string().min(1), StudyLiveSystemSchema]);
/** A study's system. */
export type StudySystem = z.infer<typeof StudySystemSchema>;

/** The key two study systems must not share: a scripted name, or a live system's ID or model. */
export function studySystemKey(system: StudySystem): string {
  return typeof system === 'string'
    ? system
    : (system.id ?? system.model.split('@')[0] ?? system.model);
}

const StudyBodyShape = {
  studyId: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,63}$/, {
      error: 'expected a slug: lowercase letters, digits and "-", at most 64 characters',
    })
    .describe('The study ID (a slug).'),
  protocol: z
    .literal('chi-pilot', { error: 'expected "chi-pilot" (the default pilot protocol)' })
    .describe(
      'The protocol every session runs: chi-pilot, the memory experiment of the default pilot.',
    ),
  systems: z
    .array(StudySystemSchema)
    .min(1, { error: 'expected at least one system' })
    .describe(
      'The systems: a scripted system by name (perfect, capacity-keeper, latest-wins, confabulator, abstainer; window and keyword-store keep their own memory), or a live system (an object). Each keeps its instance identity, and so its memory, across sessions.',
    ),
  experiments: z
    .strictObject({
      memory: z.strictObject({
        loads: z
          .array(
            z
              .int({ error: 'expected an integer load' })
              .min(SMALLEST_STUDY_LOAD, { error: `expected a load >= ${SMALLEST_STUDY_LOAD}` })
              .max(10_000, { error: 'expected a load <= 10000' }),
          )
          .min(1, { error: 'expected at least one load' })
          .describe('Memory loads N: encoded in the first session, probed in every session.'),
      }),
    })
    .describe(
      'The experiments of the study. The first session encodes and probes; every later session asks the same probes from the carried notebooks.',
    ),
  worldSeeds: z
    .strictObject({
      rootSeed: SeedSchema.describe('Root seed of the world seeds (as chi pilot --seed).'),
      replicates: z
        .int({ error: 'expected an integer' })
        .min(1, { error: 'expected replicates >= 1' })
        .max(1000, { error: 'expected replicates <= 1000' })
        .describe('Worlds (independent replicates); the same worlds in every session.'),
    })
    .describe('The world seeds: derived from the root seed as in chi pilot.'),
  schedule: z
    .array(StudySessionScheduleSchema)
    .min(2, { error: 'expected at least two sessions' })
    .max(100, { error: 'expected at most 100 sessions' })
    .describe('The sessions in order (s0, s1, ...), each with its earliest start.'),
  ceilings: z
    .strictObject({
      perSessionUsd: UsdSchema.describe('USD ceiling of one session.'),
      totalUsd: UsdSchema.describe(
        'USD ceiling of the whole study: a session runs under min(perSessionUsd, totalUsd - spent so far).',
      ),
    })
    .describe('USD ceilings, frozen with the study manifest.'),
  primary: z
    .strictObject({
      session: z
        .int({ error: 'expected a session index' })
        .min(0, { error: 'expected a session index >= 0' })
        .describe('The preregistered primary session (0-based index into schedule).'),
      checkpoint: z
        .strictObject({
          experiment: z.literal('memory', { error: 'expected "memory"' }),
          load: z.int({ error: 'expected an integer load' }),
        })
        .describe('The preregistered primary checkpoint: an experiment and one of its loads.'),
    })
    .describe('The preregistered primary estimate: retention at this session and checkpoint.'),
} as const;

/** Cross-field rules of a study: each problem names its field. */
function checkStudy(study: z.infer<z.ZodObject<typeof StudyBodyShape>>, ctx: z.RefinementCtx) {
  const first = study.schedule[0];
  if (first !== undefined && first.afterPreviousDays !== 0)
    ctx.addIssue({
      code: 'custom',
      path: ['schedule', 0, 'afterPreviousDays'],
      message: `expected 0 (the first session is due at once), found ${first.afterPreviousDays}`,
    });
  if (study.primary.session >= study.schedule.length)
    ctx.addIssue({
      code: 'custom',
      path: ['primary', 'session'],
      message: `expected a session index below ${study.schedule.length} (the schedule's length), found ${study.primary.session}`,
    });
  if (study.primary.session === 0)
    ctx.addIssue({
      code: 'custom',
      path: ['primary', 'session'],
      message: 'expected a later session than 0 (retention needs a delay)',
    });
  const loads = study.experiments.memory.loads;
  if (!loads.includes(study.primary.checkpoint.load))
    ctx.addIssue({
      code: 'custom',
      path: ['primary', 'checkpoint', 'load'],
      message: `expected one of the memory loads ${loads.join(', ')}, found ${study.primary.checkpoint.load}`,
    });
  if (study.ceilings.perSessionUsd > study.ceilings.totalUsd)
    ctx.addIssue({
      code: 'custom',
      path: ['ceilings', 'perSessionUsd'],
      message: `expected at most ceilings.totalUsd (${study.ceilings.totalUsd}), found ${study.ceilings.perSessionUsd}`,
    });
  if (new Set(study.systems.map(studySystemKey)).size !== study.systems.length)
    ctx.addIssue({ code: 'custom', path: ['systems'], message: 'expected distinct systems' });
  checkLiveSystems(study, ctx);
}

/** A live system needs a USD ceiling; an endpoint's model names no OpenRouter allowlist, and vice versa. */
function checkLiveSystems(
  study: z.infer<z.ZodObject<typeof StudyBodyShape>>,
  ctx: z.RefinementCtx,
) {
  study.systems.forEach((system, index) => {
    if (typeof system === 'string') return;
    const allowlist = system.model.includes('@');
    if (system.baseUrl !== undefined && allowlist)
      ctx.addIssue({
        code: 'custom',
        path: ['systems', index, 'model'],
        message: `expected the endpoint's plain model name (a provider allowlist is OpenRouter's), found ${JSON.stringify(system.model)}`,
      });
    if (system.baseUrl === undefined && !allowlist)
      ctx.addIssue({
        code: 'custom',
        path: ['systems', index, 'model'],
        message: `expected "model@provider[+provider...]": an OpenRouter model needs a provider allowlist (no fallback to other providers), found ${JSON.stringify(system.model)}`,
      });
  });
  const live = study.systems.findIndex((system) => typeof system !== 'string');
  if (live >= 0 && study.ceilings.perSessionUsd === 0)
    ctx.addIssue({
      code: 'custom',
      path: ['ceilings', 'perSessionUsd'],
      message: `expected a USD ceiling > 0: systems[${live}] is a live system, and a live study's spend is bounded by ceilings frozen before the first scored request`,
    });
}

/**
 * A study's declaration without the editor fields: what `chi study run` freezes and hashes in
 * the study manifest before the first scored request.
 */
export const StudyDeclarationSchema = z.strictObject(StudyBodyShape).superRefine(checkStudy);
/** A study's declaration. */
export type StudyDeclaration = z.infer<typeof StudyDeclarationSchema>;

/**
 * A study file (`study.json`, written by `chi study init DIR`): the systems, the protocol and its
 * experiments, the world seeds, a schedule of sessions (each with its earliest start as a delay
 * after the previous one), per-session and total USD ceilings and the preregistered primary
 * session and checkpoint (docs/protocol.md, "Studies").
 *
 * @example
 * ```json
 * { "studyId": "four-weeks", "protocol": "chi-pilot", "systems": ["perfect"],
 *   "experiments": { "memory": { "loads": [32] } },
 *   "worldSeeds": { "rootSeed": 20260901, "replicates": 4 },
 *   "schedule": [{ "afterPreviousDays": 0 }, { "afterPreviousDays": 1 }, { "afterPreviousDays": 6 }],
 *   "ceilings": { "perSessionUsd": 5, "totalUsd": 15 },
 *   "primary": { "session": 2, "checkpoint": { "experiment": "memory", "load": 32 } } }
 * ```
 */
export const StudyFileSchema = z
  .strictObject({
    $schema: z.string().optional().describe('The JSON Schema of this file, for editor completion.'),
    $comment: z
      .union([z.string(), z.array(z.string())])
      .optional()
      .describe('Free text for people; ignored by chi.'),
    ...StudyBodyShape,
  })
  .superRefine(checkStudy);
/** A study file. */
export type StudyFile = z.infer<typeof StudyFileSchema>;

/**
 * A session run folder's link to its study (`manifest.study`): the study manifest's hash, the
 * session's index, the state it continues from (the previous session's state hash; null for the
 * first session), when it was due and whether it ran before that (`chi study run --now`).
 */
export const RunStudyLinkSchema = z.strictObject({
  studyId: z.string().min(1),
  studyManifestSha256: Sha256Schema,
  sessionIndex: z.int().min(0),
  previousStateSha256: Sha256Schema.nullable(),
  dueAt: IsoTimeSchema,
  early: z.boolean(),
  ceilingUsd: UsdSchema,
});
/** A session run folder's link to its study. */
export type RunStudyLink = z.infer<typeof RunStudyLinkSchema>;

/** A model ID and provider a session's replies came back with, per system. */
export const StudySessionModelSchema = z.strictObject({
  systemId: z.string().min(1),
  models: z.array(z.string()),
  providers: z.array(z.string()),
});
/** The returned model IDs and providers of one system in one session. */
export type StudySessionModel = z.infer<typeof StudySessionModelSchema>;

/** What a finished study session records beside its run folder (`sessions/s<k>.session.json`). */
export const StudySessionRecordSchema = z.strictObject({
  kind: z.literal('chi-study-session'),
  sessionIndex: z.int().min(0),
  runManifestSha256: Sha256Schema,
  startedAt: IsoTimeSchema,
  finishedAt: IsoTimeSchema,
  dueAt: IsoTimeSchema,
  early: z.boolean(),
  exitCode: z.int(),
  ceilingUsd: UsdSchema,
  chargedUsd: UsdSchema,
  stateSha256: Sha256Schema,
  models: z.array(StudySessionModelSchema),
  /** Systems whose returned model IDs or providers differ from the previous session's. */
  modelChanges: z.array(z.string()),
});
/** What a finished study session records. */
export type StudySessionRecord = z.infer<typeof StudySessionRecordSchema>;

/**
 * What a study carries of one system that keeps its own memory (memory policy `system`): its
 * instances by instance ID (stable across the sessions of a study). With the instance-control
 * extension (`carry: "exported"`) each instance's exported state, which the next session imports
 * before its first request; without it (`carry: "identity"`) null: the state lives in the system,
 * and the study carries the identity only.
 */
export const StudyCarriedInstancesSchema = z.strictObject({
  carry: z.enum(['exported', 'identity']),
  states: z.record(
    z.string(),
    z.strictObject({ state: z.unknown(), bytesStored: z.number().min(0) }).nullable(),
  ),
});
/** What a study carries of one system that keeps its own memory. */
export type StudyCarriedInstances = z.infer<typeof StudyCarriedInstancesSchema>;

/**
 * The state a study session ends with (`sessions/s<k>.state.json`): every instance's notebooks,
 * rebuilt from the session's hash-chained attempt log (or carried unchanged), linked to the
 * previous state by its hash. The next session continues from it and refuses it when its hash
 * differs from the one recorded.
 */
export const StudyStateSchema = z.strictObject({
  kind: z.literal('chi-study-state'),
  studyManifestSha256: Sha256Schema,
  sessionIndex: z.int().min(0),
  previousStateSha256: Sha256Schema.nullable(),
  /** Notebook text by `<systemId>|memory|<worldSeed>|<load>`. */
  notebooks: z.record(z.string(), z.string()),
  /**
   * The memory of each system that keeps its own (memory policy `system`), by system ID; absent
   * when no system does.
   */
  instances: z.record(z.string(), StudyCarriedInstancesSchema).optional(),
});
/** The state a study session ends with. */
export type StudyState = z.infer<typeof StudyStateSchema>;

/**
 * One CHIS entry of a study (`study-chis.jsonl`): a system's memory quality in one world and
 * load at one session, with the framework's clocks kept apart: the session index, the wall-clock
 * time the session finished, the event count (experiences ingested so far: one encode) and the
 * delay since the state was written.
 */
export const StudyChisEntrySchema = z.strictObject({
  kind: z.literal('study-chis-entry'),
  sessionIndex: z.int().min(0),
  wallClock: IsoTimeSchema,
  eventCount: z.int().min(0),
  delayDays: z.number().min(0),
  systemId: z.string().min(1),
  worldSeed: z.int().min(0),
  load: z.int().min(1),
  qualityScore: z.number().min(0).max(1).nullable(),
  /** Retrieval accuracy r (current value of a recorded key): the factor a decay reads directly. */
  retrieval: z.number().min(0).max(1).nullable(),
  blockComplete: z.boolean(),
});
/** One CHIS entry of a study. */
export type StudyChisEntry = z.infer<typeof StudyChisEntrySchema>;
