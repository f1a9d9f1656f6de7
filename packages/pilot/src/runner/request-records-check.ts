import { requestInputBytes } from '@chi/openrouter';
import { canonicalJson, openRunFolder, type RunFolder, sha256Hex } from '@chi/run';
import { RUN_FILE_NAME, streamRunJsonl } from '@chi/run/internal';
import { type AttemptRecord, AttemptRecordSchema, RunFolderDamagedError } from '@chi/spec';

/** What the last answered attempt of a request recorded about what was sent. */
interface SentRecord {
  readonly attemptId: string;
  readonly requestSha256: string;
  readonly inputBytes: number;
}

/**
 * The last `after_response` of every answered request (the attempt log streamed, not held);
 * `visit` sees every record of the same pass, in file order.
 */
async function answeredRequests(
  folder: RunFolder,
  visit: (record: AttemptRecord) => void,
): Promise<Map<string, SentRecord>> {
  const answered = new Map<string, SentRecord>();
  for await (const record of streamRunJsonl(folder.paths.attempts, AttemptRecordSchema)) {
    visit(record);
    if (record.phase === 'after_response')
      answered.set(record.requestId, {
        attemptId: record.attemptId,
        requestSha256: record.requestSha256,
        inputBytes: record.inputBytes,
      });
  }
  return answered;
}

/** Layout 0.1: each request file must hash and measure as its messages and as the attempt says. */
function checkLegacyRequest(folder: RunFolder, requestId: string, sent: SentRecord): void {
  const file = folder.paths.legacyRequest(requestId);
  const request = folder.readRequestSync(requestId);
  if (request === null)
    throw new RunFolderDamagedError(
      file,
      `missing, but ${RUN_FILE_NAME.attempts} resolved ${sent.attemptId}: scores need what was asked`,
    );
  const sha256 = sha256Hex(canonicalJson(request.messages));
  if (sha256 !== request.requestSha256 || sha256 !== sent.requestSha256)
    throw new RunFolderDamagedError(
      file,
      `its messages hash to ${sha256}, it records requestSha256 ${request.requestSha256} and ${sent.attemptId} ${sent.requestSha256}: the request was edited after it was sent`,
    );
  const bytes = requestInputBytes(request.messages);
  if (bytes !== request.inputBytes || bytes !== sent.inputBytes)
    throw new RunFolderDamagedError(
      file,
      `its messages are ${bytes} input bytes, it records inputBytes ${request.inputBytes} and ${sent.attemptId} ${sent.inputBytes}: the request was edited after it was sent`,
    );
}

/**
 * Checks the stored requests against the attempt log before a resume or `chi score` reads them:
 * every answered request has its record, with the attempt's `requestSha256` and `inputBytes`
 * (layout 0.2: its `requests.jsonl` line; layout 0.1: its `requests/<id>.json`, whose messages
 * are hashed and measured again, since nothing else names that file by its content).
 *
 * `visit`, when given, is handed every attempt record of the check's one streamed pass (in file
 * order, before any check of the stored requests), so that `chi score` reads what else it needs
 * from the log in the same pass instead of streaming it again (issue 38).
 *
 * @throws `RunFolderDamagedError` naming `requests.jsonl` or `requests/<id>.json`
 */
export async function checkRequestRecords(
  runDir: string,
  visit: (record: AttemptRecord) => void = () => {},
): Promise<void> {
  const folder = openRunFolder(runDir);
  const answered = await answeredRequests(folder, visit);
  if (answered.size === 0) return;
  if (folder.requestLayout === '0.1') {
    for (const [requestId, sent] of answered) checkLegacyRequest(folder, requestId, sent);
    return;
  }
  const index = folder.readRequestIndexSync();
  const file = folder.paths.requestIndex;
  for (const [requestId, sent] of answered) {
    const entry = index.get(requestId);
    if (entry === undefined)
      throw new RunFolderDamagedError(
        file,
        `no line for ${requestId}, but ${RUN_FILE_NAME.attempts} resolved ${sent.attemptId}: scores need what was asked`,
      );
    if (entry.requestSha256 !== sent.requestSha256)
      throw new RunFolderDamagedError(
        file,
        `the line of ${requestId}: its requestSha256 ${entry.requestSha256} is not the ${sent.requestSha256} of ${sent.attemptId}`,
      );
    if (entry.inputBytes !== sent.inputBytes)
      throw new RunFolderDamagedError(
        file,
        `the line of ${requestId}: its inputBytes ${entry.inputBytes} is not the ${sent.inputBytes} of ${sent.attemptId} (the reservation of what was sent)`,
      );
  }
}
