import type { BlindMemoryWorld, MemoryWorld } from '@chi/spec';

/**
 * What an encoder or prober may see of a world: the load, the records (in presentation order) and
 * the blind probes. Strips the seed (which regenerates everything), the generator info, record
 * roles, counts, the probes-per-stratum setting and the answer key. Returns fresh copies, so the
 * view shares no objects with the world.
 *
 * @example
 * ```ts
 * const view = blindView(generateMemoryWorld({ seed: 7, load: 32 }));
 * Object.keys(view); // ['kind', 'load', 'records', 'probes']
 * ```
 */
export function blindView(world: MemoryWorld): BlindMemoryWorld {
  return {
    kind: 'blind-memory-world',
    load: world.load,
    records: world.records.map((record) => ({
      key: record.key,
      value: record.value,
      source: record.source,
      eventTime: record.eventTime,
      authority: record.authority,
    })),
    probes: world.probes.map((probe) => ({ id: probe.id, key: probe.key, asOf: probe.asOf })),
  };
}
