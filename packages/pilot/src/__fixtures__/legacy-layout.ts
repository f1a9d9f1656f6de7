import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openRunFolder } from '@chi/run';

/**
 * Rewrites a layout-0.2 run folder's requests into layout 0.1 (one pretty
 * `requests/<requestId>.json` per request, messages inline; no `requests.jsonl`, no `payloads/`),
 * as an earlier version of the runner wrote them. Worlds stay gzip: readers accept both forms.
 */
export async function toLegacyLayout(runDir: string): Promise<void> {
  const folder = openRunFolder(runDir);
  const requests = [];
  for await (const request of folder.readRequests()) requests.push(request);
  await mkdir(join(runDir, 'requests'), { recursive: true });
  for (const request of requests)
    await writeFile(
      join(runDir, 'requests', `${request.requestId}.json`),
      `${JSON.stringify(request, null, 2)}\n`,
    );
  await rm(folder.paths.requestIndex);
  await rm(folder.paths.payloadsDir, { recursive: true });
}
