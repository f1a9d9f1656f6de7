import {
  defineExperiment,
  type ParameterFlag,
  type PlannedRequestFields,
  type PlannedUnit,
  plannedRequest,
  type RenderContext,
  type RenderedMessages,
  requestNonce,
} from '@chi/experiment';
import { type ChatMessage, InvalidArgumentError, type PlannedRequest } from '@chi/spec';
import {
  type MemoryExperimentParams,
  MemoryExperimentParamsSchema,
  plannedField,
} from '@chi/spec/internal';
import { blindView } from '@chi/worlds';
import { z } from 'zod';
import { type BuiltInHost, memoryWorldKey } from '../built-in-experiment';
import { manifestPolicy } from '../memory-policy';
import { sharedRender } from '../shared-renders';
import { MEMORY_PROMPT_TEMPLATES, TRANSCRIPT_REPLAY_TEMPLATES } from './prompts';
import {
  renderMemoryEncode,
  renderMemoryOracleProbe,
  renderMemoryProbe,
  renderMemoryReplayProbe,
} from './render';

type PlannedFields = PlannedRequestFields;

/** Number of probe batches for a world with `probeCount` probes. */
export function probeBatchCount(probeCount: number, batchSize: number | null): number {
  if (batchSize === null || batchSize >= probeCount) return 1;
  return Math.ceil(probeCount / batchSize);
}

/**
 * The stored transcript of a system's encode session for a request's world and load: the encode
 * messages exactly as sent (re-rendered: rendering is deterministic) and the reply as written,
 * uncapped. What the replay baseline stores, and what each of its probes replays.
 */
export function encodeTranscript(
  context: RenderContext<MemoryExperimentParams, BuiltInHost>,
): ChatMessage[] {
  const { request, manifest, worlds, prompts, notes } = context;
  const world = worlds.memory.get(memoryWorldKey(request.worldSeed, plannedField(request, 'load')));
  if (world === undefined)
    throw new InvalidArgumentError(
      'worlds',
      `no memory world for seed ${request.worldSeed} load ${request.load}`,
    );
  const encode = renderMemoryEncode(prompts, {
    records: blindView(world).records,
    nonce: requestNonce(
      request.worldSeed,
      loadUnitId(request.worldSeed, plannedField(request, 'load')),
      'encode',
    ),
    notebookCapBytes: manifest.notebookCapBytes,
    // the encode exactly as this system was sent it
    policy: manifestPolicy(manifest, request.systemId),
  });
  return [
    ...encode.messages,
    { role: 'assistant', content: notes(request.systemId, encodeReplyKey(request)) },
  ];
}

/** Number of strata of the memory protocol (r, t, s, u, i, f). */
const STRATA_COUNT = 6;
const CONTROL_CONDITIONS = ['blank', 'oracle'] as const;

const factor = z.number().min(0).max(1);

/** Notebook key of a memory world's encoded notes: `memory|<seed>|<load>`. */
export function memoryNotebookKey(request: Pick<PlannedRequest, 'worldSeed' | 'load'>): string {
  return `memory|${request.worldSeed}|${request.load}`;
}

/**
 * Key of the encode session's reply as the system wrote it, uncapped (`reply|memory|<seed>|<load>`):
 * the assistant turn of the stored transcript the replay baseline reads.
 */
export function encodeReplyKey(request: Pick<PlannedRequest, 'worldSeed' | 'load'>): string {
  return `${REPLY_KEY_PREFIX}${memoryNotebookKey(request)}`;
}

/** Prefix of the note lookup keys that return a note-writing request's reply uncapped. */
export const REPLY_KEY_PREFIX = 'reply|';

function probeBatch<T>(probes: readonly T[], batch: number, batchSize: number | null): T[] {
  if (batchSize === null) return [...probes];
  return probes.slice(batch * batchSize, (batch + 1) * batchSize);
}

function probeRequests(
  common: Omit<PlannedFields, 'requestId' | 'step' | 'batch' | 'nonce'>,
  unit: string,
  prefix: string,
  batches: number,
): PlannedRequest[] {
  return Array.from({ length: batches }, (_, batch) => {
    const step = `${prefix}probe.b${batch}`;
    return plannedRequest({
      ...common,
      requestId: `${common.systemId}.${unit}.${step}`,
      step,
      batch,
      nonce: requestNonce(common.worldSeed, unit, step),
    });
  });
}

/** The block (and nonce unit) of one memory world and load: `memory.w<seed>.n<load>`. */
function loadUnitId(worldSeed: number, load: number): string {
  return `memory.w${worldSeed}.n${load}`;
}

function loadUnit(worldSeed: number, load: number, batches: number, replay: boolean): PlannedUnit {
  const unit = loadUnitId(worldSeed, load);
  return {
    block: { blockId: unit, experiment: 'memory', worldSeed, load },
    requestsFor: (systemId) => {
      const common = {
        systemId,
        blockId: unit,
        worldSeed,
        experiment: 'memory' as const,
        load,
        condition: 'notebook' as const,
      };
      const encodeId = `${systemId}.${unit}.encode`;
      const list: PlannedRequest[] = [
        plannedRequest({
          ...common,
          requestId: encodeId,
          task: 'memory_encode',
          step: 'encode',
          dependsOn: [],
          writesNotebook: true,
          nonce: requestNonce(worldSeed, unit, 'encode'),
        }),
      ];
      const probe = {
        ...common,
        task: 'memory_probe' as const,
        dependsOn: [encodeId],
        writesNotebook: false,
      };
      list.push(...probeRequests(probe, unit, '', batches));
      // The replay baseline sits in the same block, so its worlds pair with the notebook's.
      if (replay)
        list.push(...probeRequests({ ...probe, condition: 'replay' }, unit, 'replay.', batches));
      return list;
    },
  };
}

function controlsUnit(worldSeed: number, load: number, batches: number): PlannedUnit {
  const unit = `controls.w${worldSeed}.n${load}`;
  return {
    block: { blockId: unit, experiment: 'controls', worldSeed, load },
    requestsFor: (systemId) =>
      CONTROL_CONDITIONS.flatMap((condition) =>
        Array.from({ length: batches }, (_, batch) => {
          const step = `${condition}.probe.b${batch}`;
          return plannedRequest({
            systemId,
            blockId: unit,
            worldSeed,
            experiment: 'controls',
            load,
            condition,
            batch,
            requestId: `${systemId}.${unit}.${step}`,
            task: condition === 'blank' ? 'memory_probe' : 'memory_probe_oracle',
            step,
            dependsOn: [],
            writesNotebook: false,
            nonce: requestNonce(worldSeed, unit, step),
          });
        }),
      ),
  };
}

const memoryShape = MemoryExperimentParamsSchema.shape;

/**
 * The memory experiment's parameters with their command-line flags (`--loads`, `--batch-size`,
 * `--no-controls`): `MemoryExperimentParamsSchema` with those fields' metadata, so validation
 * (strictness and every other field included) is exactly the spec schema's.
 */
const MEMORY_PARAMETERS = MemoryExperimentParamsSchema.extend({
  loads: memoryShape.loads.meta({
    cli: {
      flag: 'loads',
      option: 'loads',
      kind: 'integer-list',
      placeholder: '32,64,...|v0.1',
      help: 'memory loads, each 1-10000 (default 32,64,128,256; v0.1 = 100,300,1000,3000,10000)',
      range: { min: 1, max: 10_000 },
      example: '32,64,128,256',
      presets: { 'v0.1': [100, 300, 1000, 3000, 10000] },
    } satisfies ParameterFlag,
  }),
  batchSize: memoryShape.batchSize.meta({
    cli: {
      flag: 'batch-size',
      option: 'batchSize',
      kind: 'integer',
      placeholder: 'N',
      help: 'probes per probe request, 1-10000 (default: all in one)',
      range: { min: 1, max: 10_000 },
    } satisfies ParameterFlag,
  }),
  controlsAtLoad: memoryShape.controlsAtLoad.meta({
    cli: {
      flag: 'no-controls',
      option: 'controls',
      kind: 'negation',
      help: 'without the blank-notebook and oracle-evidence controls',
    } satisfies ParameterFlag,
  }),
  transcriptReplay: memoryShape.transcriptReplay.meta({
    cli: {
      flag: 'transcript-replay',
      option: 'transcriptReplay',
      kind: 'switch',
      help: "also ask every memory load's questions from the stored transcript of the\nencode session (uncapped; bytes stored and replayed are reported)",
    } satisfies ParameterFlag,
  }),
});

/**
 * The memory experiment: encode a generated world into a bounded notebook, then answer blind
 * probes of six strata from the notes alone; blank and oracle controls at one load.
 */
export const memoryExperiment = defineExperiment<MemoryExperimentParams, BuiltInHost>({
  specificationVersion: 'chi-experiment-v1',
  id: 'memory',
  title: 'Memory capacity (Q_M over a load grid, EIMC)',
  slots: [
    {
      axis: 'M',
      coverage: 'implemented',
      what: 'effective indexed memory capacity: Q_M(N) and its six factors over a load grid, EIMC_tau',
    },
  ],
  procedure:
    'For each load N generate N target keys, N distractors, floor(0.25N) authoritative updates and floor(0.25N) conflicting lower-authority records; one request encodes them into a capped notebook, then fresh requests answer blind probes (eight per stratum r, t, s, u, i, f) from the notes only.',
  taskScore:
    'Q_M = (r * t * s * u * i * (1-f))^(1/6) of equally weighted world-mean factors; EIMC_0.8 is the largest tested N with Q_M >= 0.8.',
  features: [
    {
      id: 'memory-quality-factors',
      version: 1,
      features: ['r', 't', 's', 'u', 'i', 'oneMinusF'],
      coding:
        'Pass ratios per stratum over the probes of a world and load; oneMinusF = 1 - (unsupported affirmative + invalid lures) / lures. Q_M = product of factor^(1/6).',
      schema: z.strictObject({
        r: factor,
        t: factor,
        s: factor,
        u: factor,
        i: factor,
        oneMinusF: factor,
      }),
    },
  ],
  control:
    'At one load: a blank-notebook reset control and an oracle-evidence control with the original records, on the same blind questions.',
  seedPassages: [
    {
      source: 'framework',
      quote:
        'For a load N, clear transient context and measure six components: retrieval accuracy r; temporal correctness t; source fidelity s; update fidelity u; interference accuracy i; and a conservative false-memory failure rate f.',
    },
    {
      source: 'protocol',
      quote:
        'At N=32 additionally run a blank-notebook reset control and an oracle-evidence control containing the original records, on the same blind questions.',
    },
  ],
  parameters: MEMORY_PARAMETERS,
  kinds: ['memory', 'controls'],
  tasks: ['memory_encode', 'memory_probe', 'memory_probe_oracle'],
  parametersFrom: (settings) =>
    settings.loads.length === 0
      ? null
      : {
          loads: [...settings.loads],
          probesPerStratum: settings.probesPerStratum,
          batchSize: settings.batchSize,
          controlsAtLoad: settings.controlsAtLoad,
          ...(settings.transcriptReplay === true ? { transcriptReplay: true as const } : {}),
        },
  parametersOf: (manifest) => manifest.experiments.memory,
  plan: ({ params, worldSeed }) => {
    const batches = probeBatchCount(STRATA_COUNT * params.probesPerStratum, params.batchSize);
    const replay = params.transcriptReplay === true;
    const units = params.loads.map((load) => loadUnit(worldSeed, load, batches, replay));
    if (params.controlsAtLoad !== null)
      units.push(controlsUnit(worldSeed, params.controlsAtLoad, batches));
    return units;
  },
  render: (context) => {
    const { request, params, manifest, worlds, prompts, notes } = context;
    const world = worlds.memory.get(
      memoryWorldKey(request.worldSeed, plannedField(request, 'load')),
    );
    if (world === undefined)
      throw new InvalidArgumentError(
        'worlds',
        `no memory world for seed ${request.worldSeed} load ${request.load}`,
      );
    const view = () => blindView(world);
    const probes = () =>
      probeBatch(view().probes, plannedField(request, 'batch'), params.batchSize);
    // What no system's state enters is rendered once for all the systems of the block.
    const shared = (key: string, render: () => RenderedMessages) =>
      sharedRender(
        prompts,
        world,
        `${key}|${request.nonce}|${request.batch}|${params.batchSize}`,
        render,
      );
    // Who holds the memory decides the wording (shared renders are keyed by it too).
    const policy = manifestPolicy(manifest, request.systemId);
    if (request.task === 'memory_encode')
      return shared(`encode|${manifest.notebookCapBytes}|${policy}`, () =>
        renderMemoryEncode(prompts, {
          records: view().records,
          nonce: request.nonce,
          notebookCapBytes: manifest.notebookCapBytes,
          policy,
        }),
      );
    if (request.task === 'memory_probe_oracle')
      return shared('oracle', () =>
        renderMemoryOracleProbe(prompts, {
          records: view().records,
          probes: probes(),
          nonce: request.nonce,
        }),
      );
    if (request.condition === 'replay')
      return renderMemoryReplayProbe(prompts, {
        transcript: encodeTranscript(context),
        probes: probes(),
        nonce: request.nonce,
      });
    if (request.condition === 'blank')
      return shared(`blank|${policy}`, () =>
        renderMemoryProbe(prompts, { notes: '', probes: probes(), nonce: request.nonce, policy }),
      );
    const text = notes(request.systemId, memoryNotebookKey(request));
    return renderMemoryProbe(prompts, {
      notes: text,
      probes: probes(),
      nonce: request.nonce,
      policy,
    });
  },
  notebookKey: memoryNotebookKey,
  promptTemplates: MEMORY_PROMPT_TEMPLATES,
  unusedTemplates: (params) =>
    params?.transcriptReplay === true ? [] : TRANSCRIPT_REPLAY_TEMPLATES,
});
