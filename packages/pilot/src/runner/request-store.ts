import {
  type CanonicalPayload,
  createJsonlWriter,
  type JsonlWriter,
  openRunFolder,
  type RequestLayout,
} from '@chi/run';
import { requestIndexEntry } from '@chi/run/internal';
import type { RenderedRequest, RequestIndexEntry } from '@chi/spec';
import { RequestIndexEntrySchema } from '@chi/spec/internal';
import { openRunLog, writeJsonFile } from '../run-folder/run-folder';

/** Where the runner records each rendered request just before its `before_send`. */
export interface RequestStore {
  /** The layout the folder is written in (a 0.1 folder keeps its layout when resumed). */
  readonly layout: RequestLayout;
  /**
   * Stores the request: its payload (once per distinct content) and its index line. `payload` is
   * its messages as `canonicalPayload` gave them (hashed once for `requestSha256`).
   */
  write(request: RenderedRequest, payload: CanonicalPayload): Promise<void>;
  /** Flushes and closes the index. */
  close(): Promise<void>;
}

/**
 * Opens the request store of a run folder in the folder's own layout: a new or 0.2 folder gets
 * content-addressed payloads and `requests.jsonl`; a 0.1 folder (from an earlier version) keeps
 * writing `requests/<id>.json`, so resuming it never mixes two layouts.
 */
export async function openRequestStore(runDir: string): Promise<RequestStore> {
  const folder = openRunFolder(runDir);
  const { paths } = folder;
  if (folder.requestLayout === '0.1')
    return {
      layout: '0.1',
      write: (request) => writeJsonFile(paths.legacyRequest(request.requestId), request),
      close: async () => {},
    };
  const index: JsonlWriter<RequestIndexEntry> = await openRunLog(paths.requestIndex, () =>
    createJsonlWriter({
      path: paths.requestIndex,
      schema: RequestIndexEntrySchema,
      fsync: 'on-flush',
    }),
  );
  return {
    layout: '0.2',
    async write(request, payload) {
      // The payload first: an index line always names a stored payload.
      await folder.writeCanonicalPayload(payload);
      await index.append(requestIndexEntry(request));
    },
    close: () => index.close(),
  };
}
