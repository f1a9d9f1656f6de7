/**
 * A stand-in for a memory product: the thing a memory-system author already has. It knows nothing
 * about CHI. It keeps memories per user (a namespace), finds them by key, and, like many hosted
 * memory services, holds at most `maxItemsPerUser` memories per user, evicting the oldest.
 *
 * Replace this file with calls to your own product (its SDK or REST API); `adapter.ts` uses only
 * the six methods of {@link MemoryProduct}.
 */

/** One stored memory: a fact with where it came from, when it happened and how authoritative it is. */
export interface Memory {
  readonly key: string;
  readonly value: string;
  readonly source: string;
  /** ISO 8601 UTC. */
  readonly eventTime: string;
  /** 2 beats 1. */
  readonly authority: 1 | 2;
}

/** What the product exports for one user: its own format, opaque to the adapter's caller. */
export interface ProductDump {
  readonly format: 'acme-memory-dump-v1';
  readonly memories: readonly Memory[];
}

/** The product's API, as an adapter sees it. */
export interface MemoryProduct {
  add(user: string, memories: readonly Memory[]): void;
  /** Every memory of `user` stored under `key`, oldest first. */
  search(user: string, key: string): Memory[];
  /** UTF-8 bytes the product holds for `user` (its own storage accounting). */
  bytesStored(user: string): number;
  exportUser(user: string): ProductDump;
  importUser(user: string, dump: ProductDump): void;
  deleteUser(user: string): void;
}

/** The default plan's limit: memories kept per user before the oldest are evicted. */
export const DEFAULT_MAX_ITEMS_PER_USER = 200;

/** An in-memory {@link MemoryProduct} with a per-user item limit (oldest evicted first). */
export function createProductMemory(
  maxItemsPerUser: number = DEFAULT_MAX_ITEMS_PER_USER,
): MemoryProduct {
  const users = new Map<string, Memory[]>();
  const of = (user: string): Memory[] => users.get(user) ?? [];
  return {
    add(user, memories) {
      users.set(user, [...of(user), ...memories].slice(-maxItemsPerUser));
    },
    search: (user, key) => of(user).filter((memory) => memory.key === key),
    bytesStored: (user) =>
      of(user).reduce((sum, memory) => sum + Buffer.byteLength(JSON.stringify(memory), 'utf8'), 0),
    exportUser: (user) => ({ format: 'acme-memory-dump-v1', memories: [...of(user)] }),
    importUser(user, dump) {
      if (dump?.format !== 'acme-memory-dump-v1' || !Array.isArray(dump.memories))
        throw new Error('importUser: not an acme-memory-dump-v1');
      users.set(user, [...dump.memories].slice(-maxItemsPerUser));
    },
    deleteUser(user) {
      users.delete(user);
    },
  };
}
