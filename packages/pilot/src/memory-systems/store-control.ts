import type { ScriptedRecord } from '@chi/experiments/internal';
import {
  INSTANCE_CONTROL_VERSION,
  type InstanceControl,
  type InstanceState,
  InvalidArgumentError,
} from '@chi/spec';
import { z } from 'zod';
import type { MemoryStore } from './memory-store';

/** The exported state of a reference memory store: the records it holds, in the order written. */
const StoreStateSchema = z.strictObject({
  records: z.array(
    z.strictObject({
      key: z.string(),
      value: z.string(),
      source: z.string(),
      eventTime: z.string(),
      authority: z.union([z.literal(1), z.literal(2), z.null()]),
    }),
  ),
});

/**
 * The instance-control extension over a map of per-instance stores (the reference memory systems
 * `window` and `keyword-store`): export is the records held with their bytes stored, import
 * replaces an instance's store by a fresh one holding the exported records (rebuilding it exactly),
 * erase replaces it by a fresh, blank store. An instance never written exports as blank.
 */
export function storeInstanceControl(
  stores: Map<string, MemoryStore>,
  createStore: () => MemoryStore,
): InstanceControl {
  return {
    version: INSTANCE_CONTROL_VERSION,
    exportState(instanceId) {
      const store = stores.get(instanceId);
      const state: InstanceState = {
        state: { records: store === undefined ? [] : [...store.records()] },
        bytesStored: store?.bytesStored() ?? 0,
      };
      return Promise.resolve(state);
    },
    importState(instanceId, exported) {
      const parsed = StoreStateSchema.safeParse(exported.state);
      if (!parsed.success)
        return Promise.reject(
          new InvalidArgumentError(
            'state',
            `expected { records: [...] } as this system exports it: ${parsed.error.issues[0]?.message ?? 'invalid'}`,
          ),
        );
      const store = createStore();
      store.write(parsed.data.records as ScriptedRecord[]);
      stores.set(instanceId, store);
      return Promise.resolve();
    },
    erase(instanceId) {
      stores.set(instanceId, createStore());
      return Promise.resolve();
    },
  };
}
