import { extractJsonBlock } from '@chi/experiment';
import type { ScriptedQuestion, ScriptedRecord } from '@chi/experiments/internal';
import {
  type ChatModel,
  type ChatRequest,
  type ChatResult,
  INSTANCE_CONTROL_VERSION,
  InvalidArgumentError,
  type SystemSpec,
} from '@chi/spec';
import {
  DEFAULT_SCRIPTED_SEED,
  SCRIPTED_SYSTEMS,
  scriptedBaselineSpec,
  scriptedChatModel,
  scriptedReply,
} from '../scripted/scripted-systems';
import { createKeywordStore, DEFAULT_TOP_K } from './keyword-store';
import type { MemoryStore } from './memory-store';
import { storeInstanceControl } from './store-control';
import { createWindowStore, DEFAULT_WINDOW_RECORDS } from './window-store';

/**
 * The reference memory systems: scripted baselines that keep their own memory (memory policy
 * `system`), with behaviour derived in docs/protocol.md. `leaky-store` is deliberately broken.
 */
export const MEMORY_REFERENCE_NAMES = ['window', 'keyword-store', 'leaky-store'] as const;

/** The name of a reference memory system. */
export type MemoryReferenceName = (typeof MEMORY_REFERENCE_NAMES)[number];

/** Everything that defines a reference memory system. */
export interface MemoryReferenceDefinition {
  readonly name: MemoryReferenceName;
  readonly description: string;
  /** A fresh memory for one instance. */
  readonly createStore: () => MemoryStore;
  /** True only for the deliberately broken reference: one memory behind every instance ID. */
  readonly sharesAcrossInstances: boolean;
}

/** The reference memory systems by name. */
export const MEMORY_REFERENCES: Readonly<Record<MemoryReferenceName, MemoryReferenceDefinition>> = {
  window: {
    name: 'window',
    description: `Reference memory system (scripted baseline, memory policy system): a sliding window that keeps the last K = ${DEFAULT_WINDOW_RECORDS} records an instance was shown and answers with the protocol precedence over them, abstaining on what it dropped. Derived EIMC: the largest tested load N with 2N + 2 floor(N/4) <= K.`,
    createStore: () => createWindowStore(DEFAULT_WINDOW_RECORDS),
    sharesAcrossInstances: false,
  },
  'keyword-store': {
    name: 'keyword-store',
    description: `Reference memory system (scripted baseline, memory policy system): a keyword retrieval store (MiniSearch, BM25, one edit of fuzziness) over every record an instance was shown; answers each question from its top ${DEFAULT_TOP_K} retrieved records, best score then latest time, never weighing authority nor checking the key. Derived failures: interference probes, and lures that share a key term with a stored key (half by construction, more as load grows).`,
    createStore: () => createKeywordStore(DEFAULT_TOP_K),
    sharesAcrossInstances: false,
  },
  'leaky-store': {
    name: 'leaky-store',
    description:
      'DELIBERATELY BROKEN reference memory system (scripted baseline, memory policy system): keeps every record it was shown with the protocol precedence, but in ONE memory behind every instance ID, so a reset does not reset it. Exists to show that the blank-memory control catches state leaking across instances.',
    createStore: () => createWindowStore(Number.POSITIVE_INFINITY),
    sharesAcrossInstances: true,
  },
};

/** Whether a name is a reference memory system. */
export function isMemoryReference(name: string): name is MemoryReferenceName {
  return (MEMORY_REFERENCE_NAMES as readonly string[]).includes(name);
}

/** The definition of a reference memory system, or an error listing the valid names. */
export function memoryReferenceDefinition(name: string): MemoryReferenceDefinition {
  if (!isMemoryReference(name))
    throw new InvalidArgumentError(
      'system',
      `expected one of ${MEMORY_REFERENCE_NAMES.join(', ')}, found ${JSON.stringify(name)}`,
    );
  return MEMORY_REFERENCES[name];
}

/** The manifest entry of a reference memory system: a scripted baseline under policy `system`. */
export function memoryReferenceSpec(name: string, maxOutputTokens = 4096): SystemSpec {
  const definition = memoryReferenceDefinition(name);
  const spec = scriptedBaselineSpec({
    name: definition.name,
    seed: DEFAULT_SCRIPTED_SEED,
    maxOutputTokens,
    uncappedNotebook: false,
    declaredNoise: {},
    description: definition.description,
    memory: 'system',
  });
  return definition.sharesAcrossInstances
    ? spec
    : { ...spec, instanceControl: INSTANCE_CONTROL_VERSION };
}

function block<T>(prompt: string, name: string): T[] {
  const value = extractJsonBlock(prompt, name);
  if (!Array.isArray(value)) throw new Error(`${name} block missing or not an array`);
  return value as T[];
}

function taskOf(prompt: string): string {
  const header = extractJsonBlock(prompt, 'REQUEST') as { task?: unknown } | undefined;
  if (typeof header?.task !== 'string') throw new Error('REQUEST block has no task');
  return header.task;
}

/** The records of a stored transcript's user turns (the replay baseline's context). */
function transcriptRecords(prompt: string): ScriptedRecord[] | null {
  const transcript = extractJsonBlock(prompt, 'TRANSCRIPT');
  if (transcript === undefined) return null;
  return (transcript as { speaker: string; text: string }[]).flatMap((turn) =>
    turn.speaker === 'user' && extractJsonBlock(turn.text, 'RECORDS') !== undefined
      ? block<ScriptedRecord>(turn.text, 'RECORDS')
      : [],
  );
}

/** Answers from records in context (oracle control, replay baseline): a fresh store of them. */
function answerInContext(
  definition: MemoryReferenceDefinition,
  records: readonly ScriptedRecord[],
  questions: readonly ScriptedQuestion[],
): string {
  const store = definition.createStore();
  store.write(records);
  return JSON.stringify(store.answer(questions));
}

/**
 * The reply of a reference memory system to one prompt, given the memory of its instance. Memory
 * sessions go to the store; a history update is acknowledged (stored nowhere: these references
 * hold memory records only); every other task is answered as the `abstainer` answers it.
 */
export function memoryReferenceReply(
  definition: MemoryReferenceDefinition,
  store: MemoryStore,
  prompt: string,
): string {
  const task = taskOf(prompt);
  if (task === 'memory_encode') {
    const records = block<ScriptedRecord>(prompt, 'RECORDS');
    store.write(records);
    return JSON.stringify({ stored: records.length, held: store.recordCount() });
  }
  if (task === 'memory_probe' || task === 'memory_probe_oracle') {
    const questions = block<ScriptedQuestion>(prompt, 'QUESTIONS');
    if (task === 'memory_probe_oracle')
      return answerInContext(definition, block<ScriptedRecord>(prompt, 'RECORDS'), questions);
    const replayed = transcriptRecords(prompt);
    if (replayed !== null) return answerInContext(definition, replayed, questions);
    return JSON.stringify(store.answer(questions));
  }
  if (task === 'history_update') return JSON.stringify({ stored: 0 });
  return scriptedReply(SCRIPTED_SYSTEMS.abstainer, DEFAULT_SCRIPTED_SEED, prompt);
}

/** A reference memory system behind `ChatModel`, with what its instances hold. */
export interface MemoryReferenceModel extends ChatModel {
  /** The instances it holds memory for, with records and bytes stored (bytes stored, report). */
  instances(): ReadonlyMap<string, { readonly records: number; readonly bytes: number }>;
}

/**
 * A reference memory system in process: one memory per instance ID (`request.instance`), made on
 * the instance's first session; a request without an instance gets a memory of its own that no
 * later request sees. Replies depend only on the prompts each instance was sent, in order.
 *
 * @example
 * ```ts
 * const window = createMemoryReferenceModel('window');
 * await window.generate({ requestId: 'e', messages: encode, instance: { instanceId: 'i1', sessionId: 'e' } });
 * await window.generate({ requestId: 'p', messages: probe, instance: { instanceId: 'i1', sessionId: 'p' } });
 * ```
 */
export function createMemoryReferenceModel(
  name: string,
  options: { readonly now?: () => Date } = {},
): MemoryReferenceModel {
  const definition = memoryReferenceDefinition(name);
  const stores = new Map<string, MemoryStore>();
  const now = options.now ?? (() => new Date());
  const modelId = `scripted/${definition.name}`;
  const storeOf = (request: ChatRequest): MemoryStore => {
    const id = definition.sharesAcrossInstances
      ? 'shared'
      : (request.instance?.instanceId ?? `request:${request.requestId}`);
    let store = stores.get(id);
    if (store === undefined) {
      store = definition.createStore();
      stores.set(id, store);
    }
    return store;
  };
  return {
    specificationVersion: 'chi-chat-v1',
    provider: 'scripted',
    modelId,
    evidenceClass: 'scripted_baseline',
    generate(request: ChatRequest): Promise<ChatResult> {
      const inner = scriptedChatModel(
        modelId,
        (prompt) => memoryReferenceReply(definition, storeOf(request), prompt),
        now,
      );
      return inner.generate(request);
    },
    // The deliberately broken reference holds one memory behind every ID: it offers no control.
    ...(definition.sharesAcrossInstances
      ? {}
      : { instanceControl: storeInstanceControl(stores, definition.createStore) }),
    instances() {
      const held = new Map<string, { records: number; bytes: number }>();
      for (const [id, store] of stores)
        held.set(id, { records: store.recordCount(), bytes: store.bytesStored() });
      return held;
    },
  };
}
