import type { MemoryObservation, ProbeNotebooks } from '@chi/analysis';
import type { MemoryCondition } from '@chi/analysis/internal';
import type { RunRecords } from '../run-folder/run-folder';

// The notebooks the memory analysis reads (`ProbeNotebooks`): the report's, because they are
// read from the run folder's notebook snapshots, which only the report's records hold.

function notebookText(records: RunRecords, requestId: string | undefined): string | null {
  if (requestId === undefined) return null;
  const path = records.notebookOfRequest.get(requestId);
  return path === undefined ? null : (records.notebooks.get(path)?.text ?? null);
}

/**
 * Where each observation's notebook is, not its text: the text is read from the run folder's
 * notebooks (which keep only the last file read) when asked for.
 */
class LazyProbeNotebooks implements ProbeNotebooks {
  readonly #sources = new Map<
    string,
    { readonly encodeRequestId: string | undefined } | null | ''
  >();
  readonly #records: RunRecords;

  constructor(records: RunRecords) {
    this.#records = records;
  }

  /** Records the notebook of one observation: its condition and the encode request that wrote it. */
  set(key: string, condition: MemoryCondition, encodeRequestId: string | undefined): void {
    this.#sources.set(
      key,
      condition === 'oracle' ? null : condition === 'blank' ? '' : { encodeRequestId },
    );
  }

  get(key: string): string | null | undefined {
    const source = this.#sources.get(key);
    if (source === undefined || source === null || source === '') return source;
    return notebookText(this.#records, source.encodeRequestId) ?? '';
  }
}

/**
 * The notebook each memory observation was answered from, by key `<system>|<blockId>|<condition>`:
 * the notebook its system's encode request of the block wrote (null for the oracle control, `''`
 * for the blank one), read from the run folder only when asked for.
 */
export function probeNotebooksOf(
  records: RunRecords,
  observations: Iterable<MemoryObservation>,
): ProbeNotebooks {
  const encodes = new Map<string, string>();
  for (const request of records.plan.requests)
    if (request.task === 'memory_encode' && !encodes.has(`${request.systemId}|${request.blockId}`))
      encodes.set(`${request.systemId}|${request.blockId}`, request.requestId);
  const notebooks = new LazyProbeNotebooks(records);
  for (const o of observations)
    notebooks.set(
      `${o.systemId}|${o.blockId}|${o.condition}`,
      o.condition,
      encodes.get(`${o.systemId}|${o.blockId}`),
    );
  return notebooks;
}
