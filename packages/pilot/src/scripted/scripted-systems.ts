import { createHash } from 'node:crypto';
import { extractJsonBlock } from '@chi/experiment';
import { BUILT_IN_EXPERIMENTS, type BuiltInExperiment } from '@chi/experiments';
import {
  scriptedArray as asArray,
  scriptedObject as asObject,
  NOTEBOOK_CAP_BYTES,
  type ScriptedBehaviorPolicy,
  type ScriptedHistoryPolicy,
  type ScriptedMemoryPolicy,
} from '@chi/experiments/internal';
import {
  type ChatModel,
  type ChatRequest,
  type ChatResult,
  type FailureClass,
  InvalidArgumentError,
  type RequestTask,
  type SystemSpec,
} from '@chi/spec';
import {
  createInstanceNoise,
  createScriptedNoise,
  type ScriptedNoise,
  type ScriptedNoiseSource,
} from './scripted-noise';

/** The names of the scripted reference systems of the pilot roster (the offline default). */
export const SCRIPTED_SYSTEM_NAMES = [
  'perfect',
  'capacity-keeper',
  'latest-wins',
  'confabulator',
  'abstainer',
] as const;

/**
 * Scripted reference systems outside the default roster, for opt-in conditions
 * (`--systems wording-sensitive`): the default run and its release do not change with them.
 */
export const EXTRA_SCRIPTED_SYSTEM_NAMES = [
  'wording-sensitive',
  'fading-recall',
  'fading-notebook',
] as const;

/** The name of a scripted reference system. */
export type ScriptedSystemName =
  | (typeof SCRIPTED_SYSTEM_NAMES)[number]
  | (typeof EXTRA_SCRIPTED_SYSTEM_NAMES)[number];

const ALL_SCRIPTED_NAMES: readonly string[] = [
  ...SCRIPTED_SYSTEM_NAMES,
  ...EXTRA_SCRIPTED_SYSTEM_NAMES,
];

/** Everything that defines a scripted reference system's behaviour. */
export interface ScriptedSystemDefinition {
  readonly name: ScriptedSystemName;
  readonly description: string;
  /** A declared reference condition: its notebook is not capped (only `perfect`). */
  readonly uncappedNotebook: boolean;
  /** Its own parameters for each experiment whose folder reads them, by experiment ID. */
  readonly policies: ScriptedPolicies;
}

/**
 * A scripted system's policies keyed by experiment ID (`ScriptedContext.policy`); an experiment
 * not keyed here keeps its own table by system name in its folder (goal persistence, feedback
 * valence).
 */
export type ScriptedPolicies = {
  readonly memory: ScriptedMemoryPolicy;
  readonly history: ScriptedHistoryPolicy;
  readonly behavior: ScriptedBehaviorPolicy;
};

const quietHistory: ScriptedHistoryPolicy = {
  evidenceRule: 'authoritative',
  maintenanceForget: 0,
  probeFlip: 0,
  whenUnknown: 'unknown',
  abstainAlways: false,
};

/** The scripted reference systems: deterministic per seed, with declared noise. */
export const SCRIPTED_SYSTEMS: Readonly<Record<ScriptedSystemName, ScriptedSystemDefinition>> = {
  perfect: {
    name: 'perfect',
    description:
      'Reference condition with an UNCAPPED notebook: writes every record and applies the protocol precedence; answers history and behavioral items exactly. Shows the ceiling of the metrics; not an evaluated memory system.',
    uncappedNotebook: true,
    policies: {
      memory: {
        encode: 'all',
        precedence: 'authority-then-time',
        whenUnknown: 'abstain',
        abstainAlways: false,
      },
      history: quietHistory,
      behavior: { errorRate: 0, framingBias: false, abstainAlways: false },
    },
  },
  'capacity-keeper': {
    name: 'capacity-keeper',
    description:
      'Keeps whole keys (winner first, then older records) in a seeded order while they fit in the 6000-byte cap and drops the rest; correct precedence; abstains on what it dropped.',
    uncappedNotebook: false,
    policies: {
      memory: {
        encode: 'capacity',
        precedence: 'authority-then-time',
        whenUnknown: 'abstain',
        abstainAlways: false,
      },
      history: { ...quietHistory, maintenanceForget: 0.1, probeFlip: 0.05 },
      behavior: { errorRate: 0.15, framingBias: false, abstainAlways: false },
    },
  },
  'latest-wins': {
    name: 'latest-wins',
    description:
      'Like the keeper but ignores authority: the latest event time wins (fails interference); in history the latest-dated evidence wins; chooses the sure option when gains are framed and the gamble when losses are framed.',
    uncappedNotebook: false,
    policies: {
      memory: {
        encode: 'capacity',
        precedence: 'latest-time',
        whenUnknown: 'abstain',
        abstainAlways: false,
      },
      history: { ...quietHistory, evidenceRule: 'latest', maintenanceForget: 0.05, probeFlip: 0.1 },
      behavior: { errorRate: 0.1, framingBias: true, abstainAlways: false },
    },
  },
  confabulator: {
    name: 'confabulator',
    description:
      'Keeps notes like the keeper but never abstains: invents a value and source for any key it has no record of (absent-key lures included) and guesses an option when it holds no evidence.',
    uncappedNotebook: false,
    policies: {
      memory: {
        encode: 'capacity',
        precedence: 'authority-then-time',
        whenUnknown: 'invent',
        abstainAlways: false,
      },
      history: { ...quietHistory, probeFlip: 0.1, whenUnknown: 'guess' },
      behavior: { errorRate: 0.5, framingBias: false, abstainAlways: false },
    },
  },
  abstainer: {
    name: 'abstainer',
    description:
      'Writes empty notes and abstains (JSON null) on every question, decision and item.',
    uncappedNotebook: false,
    policies: {
      memory: {
        encode: 'none',
        precedence: 'authority-then-time',
        whenUnknown: 'abstain',
        abstainAlways: true,
      },
      history: { ...quietHistory, abstainAlways: true },
      behavior: { errorRate: 0, framingBias: false, abstainAlways: true },
    },
  },
  'wording-sensitive': {
    name: 'wording-sensitive',
    description:
      'A wording-sensitive baseline for probe-wording invariance: answers every behavioral item correctly in its first wording and gives a wrong answer with probability 0.5 per item in the declared equivalent wording; memory and history like the keeper without noise. Its expected per-feature agreement between wordings is 0.5 on every axis.',
    uncappedNotebook: false,
    policies: {
      memory: {
        encode: 'capacity',
        precedence: 'authority-then-time',
        whenUnknown: 'abstain',
        abstainAlways: false,
      },
      history: quietHistory,
      behavior: { errorRate: 0, framingBias: false, abstainAlways: false, wordingFlip: 0.5 },
    },
  },
  'fading-recall': {
    name: 'fading-recall',
    description:
      'A reference condition with a known, interior EIMC (opt-in, for interval coverage): an UNCAPPED notebook like perfect, but each answer its notes give is kept with probability 2^(-N/256) at load N (read off the number of records) and abstained on otherwise, one draw per question from its own stream. Expected Q_M = (q^4 (1 + 3q) / 4)^(1/6): 0.934, 0.872, 0.762, 0.582 at loads 32, 64, 128, 256, so EIMC 32, 64 and 128 at tau 0.9, 0.8 and 0.7 (docs/protocol.md). History and behavior like perfect.',
    uncappedNotebook: true,
    policies: {
      memory: {
        encode: 'all',
        precedence: 'authority-then-time',
        whenUnknown: 'abstain',
        abstainAlways: false,
        recallHalfLoad: 256,
      },
      history: quietHistory,
      behavior: { errorRate: 0, framingBias: false, abstainAlways: false },
    },
  },
  'fading-notebook': {
    name: 'fading-notebook',
    description:
      'A reference condition for studies with a known decay in wall-clock time (opt-in): an UNCAPPED notebook like perfect that records when it was written; at a question each key is still known with probability 2^(-d/7), d the days since writing (one draw per key, the same at every session), and abstained on otherwise. Expected retrieval accuracy r at delay d: 2^(-d/7) (docs/study-decay.md). History and behavior like perfect.',
    uncappedNotebook: true,
    policies: {
      memory: {
        encode: 'all',
        precedence: 'authority-then-time',
        whenUnknown: 'abstain',
        abstainAlways: false,
        halfLifeDays: 7,
      },
      history: quietHistory,
      behavior: { errorRate: 0, framingBias: false, abstainAlways: false },
    },
  },
};

/** Default seed of the scripted systems' noise. */
export const DEFAULT_SCRIPTED_SEED = 20260901;

/** The declared noise probabilities of a scripted system, for the manifest. */
export function declaredNoise({ policies }: ScriptedSystemDefinition): Record<string, number> {
  return {
    historyMaintenanceForget: policies.history.maintenanceForget,
    historyProbeFlip: policies.history.probeFlip,
    behaviorError: policies.behavior.errorRate,
    // declared only where it is not zero, so the roster's manifests keep their bytes
    ...((policies.behavior.wordingFlip ?? 0) > 0
      ? { behaviorWordingFlip: policies.behavior.wordingFlip ?? 0 }
      : {}),
    ...(policies.memory.recallHalfLoad === undefined
      ? {}
      : // declared as a probability: q(N) = 2^(-N / halfLoad) = (1 - fade)^N
        { memoryFadePerLoadUnit: 1 - 2 ** (-1 / policies.memory.recallHalfLoad) }),
    ...(policies.memory.halfLifeDays === undefined
      ? {}
      : // declared as a probability: a key survives d days with (1 - decay)^d = 2^(-d / h)
        { memoryDecayPerDay: 1 - 2 ** (-1 / policies.memory.halfLifeDays) }),
  };
}

/** Checks a name against the scripted systems, with a one-line error listing the valid names. */
export function scriptedDefinition(name: string): ScriptedSystemDefinition {
  if (!ALL_SCRIPTED_NAMES.includes(name)) {
    throw new InvalidArgumentError(
      'system',
      `expected one of ${ALL_SCRIPTED_NAMES.join(', ')}, found ${JSON.stringify(name)}`,
    );
  }
  return SCRIPTED_SYSTEMS[name as ScriptedSystemName];
}

/** What distinguishes one scripted baseline's manifest entry from another's. */
export interface ScriptedBaselineFields {
  readonly name: string;
  readonly seed: number;
  readonly maxOutputTokens: number;
  readonly uncappedNotebook: boolean;
  readonly declaredNoise: NonNullable<SystemSpec['scripted']>['declaredNoise'];
  readonly description: string;
  /** The memory policy, when not the default notebook (the field is left out then). */
  readonly memory?: SystemSpec['memory'];
}

/**
 * The manifest entry of a scripted baseline (the scripted systems, the imitator and the reference
 * memory systems): model `scripted/<name>`, evidence class `scripted_baseline`, no provider, no
 * price.
 */
export function scriptedBaselineSpec(fields: ScriptedBaselineFields): SystemSpec {
  return {
    id: fields.name,
    kind: 'scripted',
    model: `scripted/${fields.name}`,
    providers: [],
    baseUrl: null,
    evidenceClass: 'scripted_baseline',
    reasoningEffort: null,
    maxOutputTokens: fields.maxOutputTokens,
    safetyPrice: null,
    uncappedNotebook: fields.uncappedNotebook,
    scripted: {
      seed: fields.seed,
      declaredNoise: fields.declaredNoise,
      description: fields.description,
    },
    ...(fields.memory === undefined ? {} : { memory: fields.memory }),
  };
}

/** The manifest entry of a scripted system. */
export function scriptedSystemSpec(
  name: string,
  seed: number = DEFAULT_SCRIPTED_SEED,
  maxOutputTokens = 4096,
): SystemSpec {
  const definition = scriptedDefinition(name);
  return scriptedBaselineSpec({
    name: definition.name,
    seed,
    maxOutputTokens,
    uncappedNotebook: definition.uncappedNotebook,
    declaredNoise: declaredNoise(definition),
    description: definition.description,
  });
}

interface RequestBlock {
  readonly task: RequestTask;
  readonly nonce: string;
  readonly notebookCapBytes?: number;
}

/**
 * A scripted system's own parameters for an experiment (`ScriptedContext.policy`): its entry in
 * `policies` under the experiment's ID; none for any other experiment (whose folder keeps its own
 * table by system name).
 */
function policyOf(definition: ScriptedSystemDefinition, experimentId: string): unknown {
  const policies: Readonly<Record<string, unknown>> = definition.policies;
  return Object.hasOwn(policies, experimentId) ? policies[experimentId] : undefined;
}

/**
 * Produces the reply text of a scripted system to one rendered prompt (the user message). It
 * reads only the machine-readable blocks of our own prompts, never an answer key. Throws when the
 * prompt is not one of ours. A smoke request is answered here; every other task goes to the
 * built-in folder (`builtIns`, default `BUILT_IN_EXPERIMENTS` of `@chi/experiments`) whose module
 * claims it, with the system's own policy for that experiment, this request's seeded draws, the
 * clock and the notebook cap the prompt states.
 */
export function scriptedReply(
  definition: ScriptedSystemDefinition,
  seed: number,
  prompt: string,
  requestId?: string,
  now: () => Date = () => new Date(),
  builtIns: readonly BuiltInExperiment[] = BUILT_IN_EXPERIMENTS,
): string {
  const header = asObject(
    extractJsonBlock(prompt, 'REQUEST'),
    'REQUEST',
  ) as unknown as RequestBlock;
  if (typeof header.nonce !== 'string') throw new Error('REQUEST block has no nonce');
  // With a request ID, the instance's own stream; without one, the prompt's nonce (see
  // `ScriptedNoiseSource`).
  const noise: ScriptedNoise =
    requestId === undefined
      ? createScriptedNoise(seed, header.nonce)
      : createInstanceNoise(seed, requestId);
  const capBytes =
    typeof header.notebookCapBytes === 'number' ? header.notebookCapBytes : NOTEBOOK_CAP_BYTES;
  if (header.task === 'smoke') return smokeReply(prompt);
  const builtIn = builtIns.find(({ experiment }) => experiment.tasks.includes(header.task));
  if (builtIn === undefined) throw new Error(`unknown task ${JSON.stringify(header.task)}`);
  return builtIn.scripted({
    system: definition.name,
    task: header.task,
    prompt,
    policy: policyOf(definition, builtIn.experiment.id),
    noise,
    now,
    notebookCapBytes: capBytes,
  });
}

/** The reply to a smoke request: every question's value and source echoed back. */
export function smokeReply(prompt: string): string {
  const questions = asArray(extractJsonBlock(prompt, 'QUESTIONS'), 'QUESTIONS') as {
    id: string;
    value: string;
    source: string;
  }[];
  return JSON.stringify(
    questions.map((question) => ({
      id: question.id,
      value: question.value,
      source: question.source,
    })),
  );
}

/** Options of {@link createScriptedModel}. */
export interface ScriptedModelOptions {
  /** Seed of the declared noise (default `DEFAULT_SCRIPTED_SEED`). */
  readonly seed?: number;
  /** Clock for result timestamps (default `() => new Date()`); timestamps never affect replies. */
  readonly now?: () => Date;
  /** Where the draws come from (default `'instance'`; see {@link ScriptedNoiseSource}). */
  readonly noise?: ScriptedNoiseSource;
  /**
   * The built-in experiments whose scripted policies answer their tasks (default
   * `BUILT_IN_EXPERIMENTS` of `@chi/experiments`; a test adds its own folder to the list).
   */
  readonly experiments?: readonly BuiltInExperiment[];
}

/**
 * A scripted reference system behind the `ChatModel` interface. Replies depend only on the
 * prompt and the seed; results are labelled evidence class `scripted_baseline` and cost nothing.
 *
 * @example
 * ```ts
 * const keeper = createScriptedModel('capacity-keeper');
 * const result = await keeper.generate({ requestId: 'r1', messages });
 * result.evidenceClass; // 'scripted_baseline'
 * ```
 */
export function createScriptedModel(name: string, options: ScriptedModelOptions = {}): ChatModel {
  const definition = scriptedDefinition(name);
  const seed = options.seed ?? DEFAULT_SCRIPTED_SEED;
  const byInstance = (options.noise ?? 'instance') === 'instance';
  // Only a decaying system's replies read the clock (fading-notebook); others never do.
  const clock = options.now ?? (() => new Date());
  return scriptedChatModel(
    `scripted/${definition.name}`,
    (prompt, requestId) =>
      scriptedReply(
        definition,
        seed,
        prompt,
        byInstance ? requestId : undefined,
        clock,
        options.experiments,
      ),
    clock,
  );
}

/**
 * A scripted system behind the `ChatModel` interface, from its reply function (prompt in, text
 * out; a throw is an invalid response): evidence class `scripted_baseline`, cost 0, timestamps
 * from `now` (they never affect replies).
 */
export function scriptedChatModel(
  modelId: string,
  reply: (prompt: string, requestId: string) => string,
  now: () => Date,
): ChatModel {
  return {
    specificationVersion: 'chi-chat-v1',
    provider: 'scripted',
    modelId,
    evidenceClass: 'scripted_baseline',
    async generate(request: ChatRequest): Promise<ChatResult> {
      if (typeof request.requestId !== 'string' || request.requestId === '') {
        throw new InvalidArgumentError(
          'requestId',
          `expected a non-empty string, found ${JSON.stringify(request.requestId)}`,
        );
      }
      if (!Array.isArray(request.messages) || request.messages.length === 0) {
        throw new InvalidArgumentError('messages', 'expected at least one message, found none');
      }
      const started = now();
      const prompt =
        [...request.messages].reverse().find((message) => message.role === 'user')?.content ?? '';
      let text: string | null = null;
      let detail: string | null = null;
      let failure: FailureClass;
      if (request.signal?.aborted === true) {
        // The transport's convention: a cancelled request is a recorded timeout, never a rejection.
        failure = 'timeout';
        detail = 'aborted by the caller before it was answered';
      } else {
        try {
          text = reply(prompt, request.requestId);
        } catch (error) {
          detail = `scripted system cannot read this prompt: ${(error as Error).message}`;
        }
        failure = text === null ? 'invalid_response' : text === '' ? 'empty_response' : 'none';
      }
      const finished = now();
      return {
        requestId: request.requestId,
        evidenceClass: 'scripted_baseline',
        text: text === '' ? null : text,
        failure,
        failureDetail: failure === 'empty_response' ? 'the system wrote nothing' : detail,
        finishReason: text === null ? null : 'stop',
        truncated: false,
        requestedModel: modelId,
        returnedModel: modelId,
        returnedProvider: 'scripted',
        generationId:
          text === null
            ? null
            : `scripted-${createHash('sha256').update(text).digest('hex').slice(0, 16)}`,
        usage: {
          promptTokens: null,
          completionTokens: null,
          reasoningTokens: null,
          totalTokens: null,
          costUsd: 0,
        },
        startedAt: started.toISOString(),
        finishedAt: finished.toISOString(),
        latencyMs: Math.max(0, finished.getTime() - started.getTime()),
        tries: [
          {
            tryIndex: 0,
            startedAt: started.toISOString(),
            status: null,
            failure,
            detail: null,
            waitMs: null,
            waitSource: null,
          },
        ],
        reservedUsd: 0,
        chargedUsd: 0,
        redactedResponse: null,
      };
    },
  };
}
