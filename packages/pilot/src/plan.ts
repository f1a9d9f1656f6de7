import { sha256Hex } from '@chi/run';
import {
  HISTORY_IDS,
  type HistoryId,
  InvalidArgumentError,
  type PlannedBlock,
  type PlannedRequest,
  type RunManifest,
  type RunPlan,
} from '@chi/spec';

/** Number of strata of the memory protocol (r, t, s, u, i, f). */
const STRATA_COUNT = 6;

/** The checkpoints of a history trajectory and the invocation that produces each notebook. */
const UPDATE_CHECKPOINTS = [1, 2, 3, 4] as const;
const PROBE_CHECKPOINTS = [0, 1, 2, 3, 4] as const;

/**
 * The nonce of a registered request: the first 16 hex digits of
 * SHA-256(`<worldSeed>|<unit>|<step>`). It depends on nothing system-specific, so every system
 * gets byte-identical prompts for the same registered request. History A2 repeats A exactly, so
 * its steps take A's nonce (see `nonceStep`): an A2 request is byte-identical to its A
 * request, and D(A, A2) measures sampling noise alone.
 */
export function requestNonce(worldSeed: number, unit: string, step: string): string {
  return sha256Hex(`${worldSeed}|${unit}|${step}`).slice(0, 16);
}

/**
 * The step whose nonce a history step uses: A2's steps use A's (`A2.c1.update` -> `A.c1.update`),
 * because the same-history control must repeat A's requests byte for byte.
 */
export function nonceStep(step: string): string {
  return step.startsWith('A2.') ? `A.${step.slice(3)}` : step;
}

/** Number of probe batches for a world with `probeCount` probes. */
export function probeBatchCount(probeCount: number, batchSize: number | null): number {
  if (batchSize === null || batchSize >= probeCount) return 1;
  return Math.ceil(probeCount / batchSize);
}

/**
 * Every registered request of a run, derived from the manifest alone, in scheduling order:
 * world by world (so that whole replicates finish first under a ceiling), and within a world
 * memory loads ascending, the controls, history, then behavior. Within a block every system's
 * requests are interleaved, so a block completes across systems before the next one starts.
 */
export function buildRunPlan(manifest: RunManifest): RunPlan {
  const systemIds = manifest.systems.map((system) => system.id);
  const duplicate = systemIds.find((id, index) => systemIds.indexOf(id) !== index);
  if (duplicate !== undefined)
    throw new InvalidArgumentError(
      'systems',
      `system IDs must be unique, found ${duplicate} twice`,
    );
  const requests: PlannedRequest[] = [];
  const blocks: PlannedBlock[] = [];
  const memory = manifest.experiments.memory;

  const base = (systemId: string, blockId: string, worldSeed: number) => ({
    systemId,
    blockId,
    worldSeed,
    load: null,
    condition: null,
    batch: null,
    history: null,
    checkpoint: null,
    half: null,
  });

  for (const worldSeed of manifest.worldSeeds) {
    const pushBlock = (
      block: Omit<PlannedBlock, 'requestIds'>,
      make: (systemId: string) => PlannedRequest[],
    ) => {
      const blockRequests = systemIds.map(make);
      const interleaved: PlannedRequest[] = [];
      const longest = Math.max(...blockRequests.map((list) => list.length));
      for (let index = 0; index < longest; index++) {
        for (const list of blockRequests) {
          const request = list[index];
          if (request !== undefined) interleaved.push(request);
        }
      }
      requests.push(...interleaved);
      blocks.push({ ...block, requestIds: interleaved.map((request) => request.requestId) });
    };

    if (memory !== null) {
      const batches = probeBatchCount(STRATA_COUNT * memory.probesPerStratum, memory.batchSize);
      for (const load of memory.loads) {
        const unit = `memory.w${worldSeed}.n${load}`;
        pushBlock({ blockId: unit, experiment: 'memory', worldSeed, load }, (systemId) => {
          const encodeId = `${systemId}.${unit}.encode`;
          const list: PlannedRequest[] = [
            {
              ...base(systemId, unit, worldSeed),
              requestId: encodeId,
              experiment: 'memory',
              task: 'memory_encode',
              step: 'encode',
              load,
              condition: 'notebook',
              dependsOn: [],
              writesNotebook: true,
              nonce: requestNonce(worldSeed, unit, 'encode'),
            },
          ];
          for (let batch = 0; batch < batches; batch++) {
            const step = `probe.b${batch}`;
            list.push({
              ...base(systemId, unit, worldSeed),
              requestId: `${systemId}.${unit}.${step}`,
              experiment: 'memory',
              task: 'memory_probe',
              step,
              load,
              condition: 'notebook',
              batch,
              dependsOn: [encodeId],
              writesNotebook: false,
              nonce: requestNonce(worldSeed, unit, step),
            });
          }
          return list;
        });
      }
      if (memory.controlsAtLoad !== null) {
        const load = memory.controlsAtLoad;
        const unit = `controls.w${worldSeed}.n${load}`;
        pushBlock({ blockId: unit, experiment: 'controls', worldSeed, load }, (systemId) => {
          const list: PlannedRequest[] = [];
          for (const condition of ['blank', 'oracle'] as const) {
            for (let batch = 0; batch < batches; batch++) {
              const step = `${condition}.probe.b${batch}`;
              list.push({
                ...base(systemId, unit, worldSeed),
                requestId: `${systemId}.${unit}.${step}`,
                experiment: 'controls',
                task: condition === 'blank' ? 'memory_probe' : 'memory_probe_oracle',
                step,
                load,
                condition,
                batch,
                dependsOn: [],
                writesNotebook: false,
                nonce: requestNonce(worldSeed, unit, step),
              });
            }
          }
          return list;
        });
      }
    }

    if (manifest.experiments.history !== null) {
      const unit = `history.w${worldSeed}`;
      pushBlock({ blockId: unit, experiment: 'history', worldSeed, load: null }, (systemId) =>
        HISTORY_IDS.flatMap((history) => historyRequests(systemId, unit, worldSeed, history, base)),
      );
    }

    if (manifest.experiments.behavior !== null) {
      const unit = `behavior.w${worldSeed}`;
      pushBlock({ blockId: unit, experiment: 'behavior', worldSeed, load: null }, (systemId) =>
        ([1, 2] as const).map((half) => ({
          ...base(systemId, unit, worldSeed),
          requestId: `${systemId}.${unit}.half${half}`,
          experiment: 'behavior' as const,
          task: 'behavior_half' as const,
          step: `half${half}`,
          half,
          dependsOn: [],
          writesNotebook: false,
          nonce: requestNonce(worldSeed, unit, `half${half}`),
        })),
      );
    }
  }
  return { kind: 'run-plan', schemaVersion: 1, requests, blocks };
}

function historyRequests(
  systemId: string,
  unit: string,
  worldSeed: number,
  history: HistoryId,
  base: (
    systemId: string,
    blockId: string,
    worldSeed: number,
  ) => Omit<
    PlannedRequest,
    'requestId' | 'experiment' | 'task' | 'step' | 'dependsOn' | 'writesNotebook' | 'nonce'
  >,
): PlannedRequest[] {
  const updateId = (checkpoint: number) => `${systemId}.${unit}.${history}.c${checkpoint}.update`;
  const list: PlannedRequest[] = [];
  for (const checkpoint of PROBE_CHECKPOINTS) {
    if (checkpoint > 0 && (UPDATE_CHECKPOINTS as readonly number[]).includes(checkpoint)) {
      const step = `${history}.c${checkpoint}.update`;
      list.push({
        ...base(systemId, unit, worldSeed),
        requestId: updateId(checkpoint),
        experiment: 'history',
        task: 'history_update',
        step,
        history,
        checkpoint,
        dependsOn: checkpoint === 1 ? [] : [updateId(checkpoint - 1)],
        writesNotebook: true,
        nonce: requestNonce(worldSeed, unit, nonceStep(step)),
      });
    }
    const step = `${history}.c${checkpoint}.probe`;
    list.push({
      ...base(systemId, unit, worldSeed),
      requestId: `${systemId}.${unit}.${step}`,
      experiment: 'history',
      task: 'history_probe',
      step,
      history,
      checkpoint,
      dependsOn: checkpoint === 0 ? [] : [updateId(checkpoint)],
      writesNotebook: false,
      nonce: requestNonce(worldSeed, unit, nonceStep(step)),
    });
  }
  return list;
}

/** Request counts per system, for `chi pilot --plan`. */
export function requestsPerSystem(plan: RunPlan): Map<string, number> {
  const counts = new Map<string, number>();
  for (const request of plan.requests)
    counts.set(request.systemId, (counts.get(request.systemId) ?? 0) + 1);
  return counts;
}
