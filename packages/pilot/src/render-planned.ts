import { InvalidArgumentError, type PlannedRequest, type RunManifest } from '@chi/spec';
import { blindView } from '@chi/worlds';
import type { PromptSet } from './prompts';
import {
  type RenderedMessages,
  renderBehaviorHalf,
  renderHistoryProbe,
  renderHistoryUpdate,
  renderMemoryEncode,
  renderMemoryOracleProbe,
  renderMemoryProbe,
} from './render-requests';
import { memoryWorldKey, type RunWorlds } from './run-worlds';

/** Key of a notebook in a run: memory `memory|<seed>|<load>`, history `history|<seed>|<H>|<k>`. */
export function notebookKey(
  request: Pick<PlannedRequest, 'experiment' | 'worldSeed' | 'load' | 'history' | 'checkpoint'>,
): string {
  if (request.experiment === 'history')
    return `history|${request.worldSeed}|${request.history}|${request.checkpoint}`;
  return `memory|${request.worldSeed}|${request.load}`;
}

/** Looks up the current notes of a system; throws when a dependency has not produced them. */
export type NotesLookup = (systemId: string, key: string) => string;

function probeBatch<T>(probes: readonly T[], batch: number, batchSize: number | null): T[] {
  if (batchSize === null) return [...probes];
  return probes.slice(batch * batchSize, (batch + 1) * batchSize);
}

/**
 * Renders a registered request from the run's worlds and the notebooks its dependencies wrote.
 * Only blind data reaches a prompt: memory worlds pass through `blindView` (no roles, no key),
 * history steps carry evidence only, behavioral items carry their facts.
 */
export function renderPlannedRequest(args: {
  request: PlannedRequest;
  manifest: RunManifest;
  worlds: RunWorlds;
  prompts: PromptSet;
  notes: NotesLookup;
}): RenderedMessages {
  const { request, manifest, worlds, prompts, notes } = args;
  const cap = manifest.notebookCapBytes;
  const memoryWorld = () => {
    const world = worlds.memory.get(memoryWorldKey(request.worldSeed, request.load ?? 0));
    if (world === undefined)
      throw new InvalidArgumentError(
        'worlds',
        `no memory world for seed ${request.worldSeed} load ${request.load}`,
      );
    return blindView(world);
  };
  const batchSize = manifest.experiments.memory?.batchSize ?? null;
  switch (request.task) {
    case 'memory_encode':
      return renderMemoryEncode(prompts, {
        records: memoryWorld().records,
        nonce: request.nonce,
        notebookCapBytes: cap,
      });
    case 'memory_probe': {
      const view = memoryWorld();
      const text =
        request.condition === 'blank' ? '' : notes(request.systemId, notebookKey(request));
      return renderMemoryProbe(prompts, {
        notes: text,
        probes: probeBatch(view.probes, request.batch ?? 0, batchSize),
        nonce: request.nonce,
      });
    }
    case 'memory_probe_oracle': {
      const view = memoryWorld();
      return renderMemoryOracleProbe(prompts, {
        records: view.records,
        probes: probeBatch(view.probes, request.batch ?? 0, batchSize),
        nonce: request.nonce,
      });
    }
    case 'history_update':
    case 'history_probe': {
      const world = worlds.history.get(request.worldSeed);
      const history = request.history;
      const checkpoint = request.checkpoint;
      if (world === undefined || history === null || checkpoint === null) {
        throw new InvalidArgumentError('worlds', `no history world for ${request.requestId}`);
      }
      if (request.task === 'history_probe') {
        return renderHistoryProbe(prompts, {
          environments: world.environments,
          notes: notes(request.systemId, notebookKey(request)),
          nonce: request.nonce,
        });
      }
      const step = world.histories[history][checkpoint];
      if (step === undefined)
        throw new InvalidArgumentError(
          'worlds',
          `history ${history} has no checkpoint ${checkpoint}`,
        );
      return renderHistoryUpdate(prompts, {
        environments: world.environments,
        notes: notes(request.systemId, notebookKey({ ...request, checkpoint: checkpoint - 1 })),
        step,
        nonce: request.nonce,
        notebookCapBytes: cap,
      });
    }
    case 'behavior_half': {
      const set = worlds.behavior.get(request.worldSeed);
      if (set === undefined)
        throw new InvalidArgumentError(
          'worlds',
          `no behavioral items for seed ${request.worldSeed}`,
        );
      return renderBehaviorHalf(prompts, {
        items: set.items.filter((item) => item.half === request.half),
        nonce: request.nonce,
      });
    }
    case 'smoke':
      throw new InvalidArgumentError('request', 'smoke requests are not part of a run plan');
  }
}
